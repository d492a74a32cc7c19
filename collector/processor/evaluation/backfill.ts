/**
 * Backfill: evaluate stored interactions again with one evaluator, exactly once per evaluator
 * version. Interactions are read oldest first; each one the evaluator's binding would trigger now
 * (enabled, trigger-on-failure, sampling, loop safety — the live rules) is queued in the ledger
 * under the version, unless that version already has an outcome for it, and run by a runtime of
 * its own. An interrupted backfill resumes where it stopped when run again (its queued
 * evaluations are picked up), and a collector started on the same ledger finishes them too.
 */
import type { EvaluationProcessorConfig } from '../../config/evalon-config.ts';
import type { ConversationStore } from '../../ledger/conversation-store.ts';
import type { EvaluationWaits } from '../../ledger/evaluation-waits.ts';
import type { EvaluationQueue } from '../../ledger/evaluation-queue.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { RecordedEvaluations } from '../../ledger/recorded-evaluations.ts';
import type { Logger } from '../../logger.ts';
import { resolveBinding } from './binding-resolution.ts';
import { createRunSettings } from './run-settings.ts';
import { isoTime, sleep, systemClock, type Clock } from './clock.ts';
import { createEvaluationRuntime, type RuntimeStats } from './evaluation-runtime.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import { isInsideEvaluation } from './loop-safety.ts';
import { queuedEvaluation, triggerVerdict } from './triggers.ts';

const PAGE = 500;
/** Queued evaluations waiting in memory before reading more interactions. */
const MAX_WAITING = 2_000;

export interface BackfillOptions {
  store: EvaluationQueue & EvaluationWaits & InteractionStore & RecordedEvaluations & ConversationStore;
  config: Pick<EvaluationProcessorConfig, 'concurrency' | 'defaults' | 'evaluators'>;
  registry: EvaluatorRegistry;
  evaluatorId: string;
  agentId?: string;
  /** ISO-8601: only interactions that ended at or after it. */
  since?: string;
  /** Recorded as the evaluator version; default the entry's `version`, else the definition's. */
  version?: string;
  logger: Logger;
  onProgress?(progress: BackfillProgress): void;
  /** Time and timers of the backfill and its runtime (default: the system clock). */
  clock?: Clock;
}

export interface BackfillProgress {
  /** Interactions matching --agent and --since. */
  total: number;
  scanned: number;
  /** Interactions the binding does not trigger (disabled, not sampled, failed, inside an evaluation). */
  notTriggered: number;
  /** Triggered, but this version already has an outcome (or is queued). */
  alreadyRecorded: number;
  queued: number;
  runtime: RuntimeStats;
}

export class BackfillError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackfillError';
  }
}

export async function runBackfill(options: BackfillOptions): Promise<BackfillProgress> {
  const { store, config, registry, evaluatorId, logger } = options;
  const definition = registry.get(evaluatorId);
  if (!definition)
    throw new BackfillError(`evaluator "${evaluatorId}" is not defined (known: ${registry.ids().join(', ')})`);
  const entry = config.evaluators[evaluatorId];
  if (!entry)
    throw new BackfillError(
      `evaluator "${evaluatorId}" has no entry under processors::evaluation::evaluators, so it is bound to no agent ` +
        '(add one, then backfill)',
    );
  const version = options.version ?? entry.version ?? definition.version;
  const clock = options.clock ?? systemClock;
  const runtime = createEvaluationRuntime({
    clock,
    store,
    registry,
    concurrency: config.concurrency,
    logger,
    resolve: createRunSettings(config.evaluators, config.defaults),
    // Its own evaluations only, an interrupted run of the same backfill included.
    accept: (evaluation) =>
      evaluation.source === 'backfill' &&
      evaluation.evaluatorId === evaluatorId &&
      evaluation.evaluatorVersion === version,
  });
  const query = {
    ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
    ...(options.since !== undefined ? { since: options.since } : {}),
  };
  const progress: BackfillProgress = {
    total: await store.countInteractions(query),
    scanned: 0,
    notTriggered: 0,
    alreadyRecorded: 0,
    queued: 0,
    runtime: runtime.stats,
  };
  const report = () => options.onProgress?.({ ...progress, runtime: { ...runtime.stats } });
  const ticker = clock.setInterval(report, 200);
  try {
    await runtime.start();
    let cursor: string | undefined;
    do {
      while (runtime.stats.waiting > MAX_WAITING) await sleep(clock, 20);
      const page = await store.pageInteractions({ ...query, limit: PAGE, ...(cursor !== undefined ? { cursor } : {}) });
      cursor = page.nextCursor;
      const triggeredAt = isoTime(clock.now());
      const candidates = [];
      for (const record of page.records) {
        progress.scanned++;
        const binding = resolveBinding(evaluatorId, entry, config.defaults, {
          agentId: record.agentId,
          roles: record.roles ?? [],
        });
        if (
          triggerVerdict(record, binding) !== 'triggered' ||
          (await isInsideEvaluation(record, (id) => store.getInteraction(id)))
        ) {
          progress.notTriggered++;
          continue;
        }
        candidates.push(queuedEvaluation(record, evaluatorId, version, triggeredAt, 'backfill'));
      }
      const queued = await store.enqueueEvaluations(candidates);
      progress.queued += queued.length;
      progress.alreadyRecorded += candidates.length - queued.length;
      runtime.submit(queued);
      report();
    } while (cursor !== undefined);
    await runtime.idle();
  } finally {
    ticker.cancel();
    await runtime.shutdown();
  }
  report();
  return { ...progress, runtime: { ...runtime.stats } };
}
