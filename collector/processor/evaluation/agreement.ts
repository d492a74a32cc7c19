/**
 * Agreement between evaluator entries, as `processors.evaluation.agreement` pairs them: for each
 * pair, the last `window` subjects both entries judged pass or fail (agreement-window.ts), kept up
 * to date as outcomes are recorded — a verdict of either entry looks up the other's verdict on the
 * same subject in the ledger (one indexed read) and updates the window — and rebuilt at start from
 * each entry's newest verdicts, so that a restart loses nothing and reads no more than the window.
 *
 * A pair whose entries include a routed one (`after`: reviews routed on failures, say) compares
 * verdicts on a biased sample — the subjects another entry failed — not on traffic at large: its
 * report says `sample: "routed"`.
 */
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { ConversationStore } from '../../ledger/conversation-store.ts';
import type { RecordedEvaluations } from '../../ledger/recorded-evaluations.ts';
import type { Logger } from '../../logger.ts';
import { createAgreementWindow, type AgreementStatistics, type AgreementWindow } from './agreement-window.ts';

export const DEFAULT_AGREEMENT_WINDOW = 500;
/** Records read per page while rebuilding. */
const REBUILD_PAGE = 500;

export interface AgreementPairConfig {
  a: string;
  b: string;
  window: number;
}

export interface AgreementPairReport extends AgreementStatistics {
  a: string;
  b: string;
  window: number;
  /** `routed`: one entry only judges subjects routed to it (a biased sample); `sampled` otherwise. */
  sample: 'routed' | 'sampled';
}

export interface AgreementTracker {
  /** Rebuilds every window from the ledger. */
  start(): Promise<void>;
  /** A recorded outcome: updates the windows of the pairs its entry is in. */
  observe(record: EvaluationRecord): void;
  report(): AgreementPairReport[];
  /** Resolves once every observed outcome is counted. */
  idle(): Promise<void>;
}

type Store = Pick<RecordedEvaluations, 'getEvaluations' | 'pageEntryEvaluations'> &
  Pick<ConversationStore, 'getConversationEvaluations'>;

/** The key of the subject a record judged: its interaction, or its conversation revision. */
export function subjectKeyOf(record: Pick<EvaluationRecord, 'interactionId' | 'subject'>): string {
  const subject = record.subject;
  return subject?.kind === 'conversation'
    ? `conversation:${JSON.stringify([subject.conversationId, subject.agentId, subject.revision])}`
    : record.interactionId;
}

const isVerdict = (record: EvaluationRecord) => record.outcome.type === 'verdict';

export function createAgreementTracker(options: {
  pairs: readonly AgreementPairConfig[];
  store: Store;
  /** Entries routed from others' outcomes. */
  routed: ReadonlySet<string>;
  logger: Logger;
}): AgreementTracker {
  const { store, logger } = options;
  const tracked = options.pairs.map((pair) => ({ ...pair, pairs: createAgreementWindow(pair.window) }));
  let chain: Promise<void> = Promise.resolve();

  /** The latest verdict of `entry` on the record's subject (the record itself when it is the latest). */
  function latest(records: EvaluationRecord[], entry: string, subject: string): EvaluationRecord | undefined {
    let found: EvaluationRecord | undefined;
    for (const record of records) {
      if (record.evaluatorId !== entry || !isVerdict(record) || subjectKeyOf(record) !== subject) continue;
      if (!found || record.completedAt >= found.completedAt) found = record;
    }
    return found;
  }

  function pairOf(a: EvaluationRecord, b: EvaluationRecord) {
    const va = a.outcome.type === 'verdict' ? a.outcome.evaluation : undefined;
    const vb = b.outcome.type === 'verdict' ? b.outcome.evaluation : undefined;
    return {
      aPassed: va!.passed,
      bPassed: vb!.passed,
      ...(va?.score !== undefined ? { aScore: va.score } : {}),
      ...(vb?.score !== undefined ? { bScore: vb.score } : {}),
    };
  }

  /** The records of a subject, from the ledger: an interaction's, or every revision's of a conversation. */
  async function recordsOf(record: EvaluationRecord): Promise<EvaluationRecord[]> {
    const subject = record.subject;
    if (subject?.kind === 'conversation')
      return store.getConversationEvaluations(subject.conversationId, subject.agentId);
    return store.getEvaluations(record.interactionId);
  }

  async function count(record: EvaluationRecord): Promise<void> {
    const pairs = tracked.filter((pair) => pair.a === record.evaluatorId || pair.b === record.evaluatorId);
    if (pairs.length === 0 || !isVerdict(record)) return;
    const records = await recordsOf(record);
    const subject = subjectKeyOf(record);
    for (const pair of pairs) {
      const a = latest([...records, ...(record.evaluatorId === pair.a ? [record] : [])], pair.a, subject);
      const b = latest([...records, ...(record.evaluatorId === pair.b ? [record] : [])], pair.b, subject);
      if (a && b) pair.pairs.set(subject, pairOf(a, b));
    }
  }

  async function rebuild(pair: AgreementPairConfig, pairs: AgreementWindow): Promise<void> {
    const subjects = new Map<string, EvaluationRecord>();
    for (const entry of [pair.a, pair.b]) {
      const seen = new Set<string>();
      let before: string | undefined;
      while (seen.size < pair.window) {
        const page = await store.pageEntryEvaluations({
          evaluatorId: entry,
          limit: REBUILD_PAGE,
          ...(before ? { before } : {}),
        });
        for (const record of page.records) {
          if (!isVerdict(record)) continue;
          const subject = subjectKeyOf(record);
          if (seen.has(subject)) continue;
          seen.add(subject);
          if (!subjects.has(subject)) subjects.set(subject, record);
          if (seen.size >= pair.window) break;
        }
        if (!page.next) break;
        before = page.next;
      }
    }
    const formed: Array<{ subject: string; at: string; a: EvaluationRecord; b: EvaluationRecord }> = [];
    for (const [subject, record] of subjects) {
      const records = await recordsOf(record);
      const a = latest(records, pair.a, subject);
      const b = latest(records, pair.b, subject);
      // biome-ignore lint/complexity/useMathMinMax: ISO-8601 timestamps, the later one compared as text
      if (a && b) formed.push({ subject, a, b, at: a.completedAt > b.completedAt ? a.completedAt : b.completedAt });
    }
    formed.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
    for (const { subject, a, b } of formed.slice(-pair.window)) pairs.set(subject, pairOf(a, b));
  }

  return {
    async start() {
      for (const pair of tracked) await rebuild(pair, pair.pairs);
    },
    observe(record) {
      if (tracked.length === 0) return;
      chain = chain.then(() =>
        count(record).catch((error: unknown) =>
          logger.warn(
            `evaluation: agreement: counting evaluation ${record.evaluationId} failed: ` +
              `${error instanceof Error ? error.message : String(error)}`,
          ),
        ),
      );
    },
    report: () =>
      tracked.map((pair) => ({
        a: pair.a,
        b: pair.b,
        window: pair.window,
        ...pair.pairs.statistics(),
        sample: options.routed.has(pair.a) || options.routed.has(pair.b) ? ('routed' as const) : ('sampled' as const),
      })),
    idle: () => chain,
  };
}
