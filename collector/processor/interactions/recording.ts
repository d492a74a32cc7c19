/**
 * Recording a tick's decisions, in two steps so that ticks can overlap on a remote ledger:
 * `prepare` reads and builds (the spans of each decided trace from memory when held, else from the
 * ledger in one read, at the same time as the split-trace check) and `commit` writes (records,
 * late spans kept for another replica's interactions, then releases, then hands the new records
 * on). The processor runs one tick's `prepare` while the previous tick commits, and commits in tick
 * order: a trace's spans are released only after its records are stored, and records reach the
 * next stage in the order they were decided.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { SpanData } from '../../model/span.ts';
import { endsConversation } from '../../ledger/conversation-store.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { ReplicaStore, TracesElsewhere } from '../../ledger/replica-store.ts';
import type { LateSpan, SpanStore } from '../../ledger/span-store.ts';
import type { Logger } from '../../logger.ts';
import type { Decisions, InteractionDecision } from './assembler.ts';
import { agentIdOf, buildInteractionRecord } from './build-record.ts';
import type { HeldSpans } from './held-spans.ts';
import type { SplitTraces } from './split-traces.ts';

export interface PreparedTick {
  records: InteractionRecord[];
  /** Spans of split traces kept as late spans of another replica's interactions, by trace. */
  kept: Map<string, LateSpan[]>;
  elsewhere: TracesElsewhere | undefined;
  releasedTraces: string[];
}

/** The processor's counters that recording moves. */
export interface RecordingStats {
  interactions: number;
  interactionsFailed: number;
  lateSpans: number;
  tracesSplit: number;
}

export interface Recording {
  prepare(decisions: Decisions): Promise<PreparedTick>;
  /**
   * `release` releases the tick's released traces once its records are stored. Resolves true when
   * a new interaction ended its conversation (the processor then closes it at once).
   */
  commit(prepared: PreparedTick, release: (traceIds: string[]) => Promise<void>): Promise<boolean>;
}

export function createRecording(options: {
  store: SpanStore & InteractionStore & ReplicaStore;
  held: HeldSpans;
  splits: SplitTraces;
  logger: Logger;
  stats: RecordingStats;
  /** Where the records new to the ledger go (the processor's `next`). */
  next: { consumeInteractions(records: InteractionRecord[]): Promise<void> } | undefined;
}): Recording {
  const { store, held, splits, logger, stats, next } = options;

  async function prepare(decisions: Decisions): Promise<PreparedTick> {
    const byTrace = new Map<string, InteractionDecision[]>();
    for (const decision of decisions.interactions) {
      const list = byTrace.get(decision.traceId);
      if (list) list.push(decision);
      else byTrace.set(decision.traceId, [decision]);
    }
    // The spans of every decided trace: held in memory when every span the decisions name is
    // there, else read from the ledger, all in one read (one round trip on PostgreSQL).
    const spans = new Map<string, Map<string, SpanData>>();
    const unread: string[] = [];
    for (const [traceId, list] of byTrace) {
      const found = byId(held.spansOf(traceId));
      if (found && list.every((decision) => named(decision).every((id) => found.has(id)))) spans.set(traceId, found);
      else unread.push(traceId);
    }
    // The split-trace check (one query per tick on a store shared by replicas) runs beside the read.
    const [elsewhere, read] = await Promise.all([
      splits.find(decidedTraces(decisions)),
      unread.length > 0 ? store.loadSpansOfTraces(unread) : new Map<string, SpanData[]>(),
    ]);
    for (const traceId of unread) spans.set(traceId, byId(read.get(traceId)) ?? new Map());

    const records: InteractionRecord[] = [];
    for (const [traceId, list] of byTrace) {
      for (const decision of list) {
        const built = buildFromDecision(decision, spans.get(traceId)!);
        if (built) records.push(built);
        else
          logger.error(
            `interactions: the stored spans of interaction ${decision.interactionId} are missing; it was not recorded`,
          );
      }
    }
    // Spans of a split trace that belong to no interaction here join the other replica's record.
    const kept = new Map<string, LateSpan[]>();
    for (const [traceId, found] of elsewhere?.traces ?? []) {
      const unassigned = decisions.unassigned.get(traceId);
      if (!unassigned || found.recorded.length === 0) continue;
      let traceSpans = spans.get(traceId) ?? byId(held.spansOf(traceId));
      if (!traceSpans || !unassigned.every((id) => traceSpans!.has(id)))
        traceSpans = byId(await store.loadTraceSpans(traceId)) ?? new Map();
      const late = splits.keepAsLate(traceId, unassigned, traceSpans, found);
      if (late.length > 0) kept.set(traceId, late);
    }
    return { records, kept, elsewhere, releasedTraces: decisions.releasedTraces };
  }

  async function commit(
    { records, kept, elsewhere, releasedTraces }: PreparedTick,
    release: (traceIds: string[]) => Promise<void>,
  ): Promise<boolean> {
    const stored = records.length > 0 ? await store.putInteractions(records) : new Set<string>();
    const late = [...kept.values()].flat();
    if (late.length > 0) {
      await store.putLateSpans(late);
      stats.lateSpans += late.length;
    }
    if (elsewhere) {
      splits.report(elsewhere, kept);
      stats.tracesSplit = splits.count;
    }
    await release(releasedTraces);
    // New to the ledger: not those recorded before a restart replayed their spans.
    const fresh = records.filter((record) => stored.has(record.interactionId));
    stats.interactions += fresh.length;
    stats.interactionsFailed += fresh.filter((record) => record.failed).length;
    if (fresh.length > 0 && next) await next.consumeInteractions(fresh);
    return fresh.some((record) => record.conversationId !== undefined && endsConversation(record.attributes));
  }

  return { prepare, commit };
}

function byId(spans: SpanData[] | undefined): Map<string, SpanData> | undefined {
  if (!spans) return undefined;
  const map = new Map<string, SpanData>();
  // A span stored twice (a retried delivery): the last one, as the ledger gives them in order.
  for (const span of spans) map.set(span.spanId, span);
  return map;
}

/** Every span id a decision reads. */
function named(decision: InteractionDecision): string[] {
  return [decision.rootSpanId, ...decision.memberSpanIds, ...decision.nested.map((nested) => nested.spanId)];
}

/** The traces a batch of decisions decided something of, each once. */
function decidedTraces(decisions: Decisions): string[] {
  const traceIds = new Set(decisions.releasedTraces);
  for (const decision of decisions.interactions) traceIds.add(decision.traceId);
  return [...traceIds];
}

function buildFromDecision(decision: InteractionDecision, spans: Map<string, SpanData>): InteractionRecord | undefined {
  const root = spans.get(decision.rootSpanId);
  if (!root) return undefined;
  const members: SpanData[] = [];
  for (const id of decision.memberSpanIds) {
    const span = spans.get(id);
    if (span) members.push(span);
  }
  const nested = decision.nested.flatMap(({ spanId, interactionId }) => {
    const span = spans.get(spanId);
    return span ? [{ span, interactionId, agentId: agentIdOf(span) }] : [];
  });
  return buildInteractionRecord({
    root,
    spans: members,
    nested,
    flowId: decision.flowId,
    completion: decision.completion,
  });
}
