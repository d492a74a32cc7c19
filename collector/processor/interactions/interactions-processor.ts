/**
 * The interactions processor: the `processors.interactions` stage. It stores every received span
 * durably before acknowledging it (the write-ahead path), feeds the assembler, and on each tick
 * builds the records of completed interactions from the stored spans, writes them to the ledger
 * and hands the new ones to the next stage (evaluation).
 *
 * Appends run concurrently (the store orders its own writes). A trace's stored spans are released
 * only when nothing of it is pending in the assembler and no append carrying it is in flight.
 *
 * Conversations: the store records each turn with its interaction; after recording a turn that
 * ends its conversation, and every `conversationScanMs` otherwise, the tick asks the conversation
 * tracker to close what is over (conversation-tracker.ts), once the interactions decided in the
 * same tick are recorded.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { SpanData } from '../../model/span.ts';
import { endsConversation, type ConversationStore } from '../../ledger/conversation-store.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { ReplicaStore } from '../../ledger/replica-store.ts';
import type { LateSpan, SpanStore } from '../../ledger/span-store.ts';
import { BackpressureError, type Lifecycle, type SpanConsumer } from '../../pipeline/consumer.ts';
import { createAssembler, type Assembler, type Decisions, type InteractionDecision } from './assembler.ts';
import { agentIdOf, buildInteractionRecord } from './build-record.ts';
import { createLogger, type Logger } from '../../logger.ts';
import { createSplitTraces } from './split-traces.ts';
import { DEFAULT_CONVERSATION_IDLE_MS, type InteractionsProcessorConfig } from './config.ts';
import {
  createConversationTracker,
  type ConversationsConsumer,
  type ConversationTracker,
} from './conversation-tracker.ts';

/** Batches waiting for the store before the receiver is told to back off. */
export const DEFAULT_MAX_QUEUED_BATCHES = 256;
/** Share of `max_pending_traces` from which new batches are refused with 429 and Retry-After. */
export const PENDING_HIGH_WATER = 0.9;
/**
 * The assembler's timer granularity: a decision falls due at most this much after its settle
 * window, before the tick that takes it (the verdict lag of an interaction, and of a conversation
 * its last turn ends, is settle + this + the tick, at most).
 */
export const DECISION_GRANULARITY_MS = 25;
/** How often idle conversations and requested ends are looked for (an indexed query on the ledger). */
export const DEFAULT_CONVERSATION_SCAN_MS = 1_000;

/** Bounds that have no YAML key (tests tighten them). */
export interface InteractionsProcessorTuning {
  /** Batches waiting for the store at most (default DEFAULT_MAX_QUEUED_BATCHES). */
  maxQueuedBatches?: number;
  /** How often completion is checked (default: a quarter of `settle`, 10 to 50 ms). */
  tickMs?: number;
  /** How often conversations due to end are looked for (default DEFAULT_CONVERSATION_SCAN_MS). */
  conversationScanMs?: number;
}

export interface InteractionsConsumer extends Partial<ConversationsConsumer> {
  /** Receives records of interactions new to the ledger (not those re-completed after a restart). */
  consumeInteractions(records: InteractionRecord[]): Promise<void>;
}

export interface InteractionsProcessorStats {
  spansReceived: number;
  interactions: number;
  interactionsFailed: number;
  lateSpans: number;
  evictedTraces: number;
  /** Traces found split across replicas sharing the ledger (split-traces.ts). */
  tracesSplit: number;
}

export interface InteractionsProcessor extends SpanConsumer, Lifecycle {
  /** Runs the completion check now (tests and shutdown use it; a timer calls it otherwise). */
  tick(): Promise<void>;
  ready(): boolean;
  readonly assembler: Assembler;
  readonly stats: InteractionsProcessorStats;
  /** Closes conversations that are over (its `stats` count them). */
  readonly conversations: ConversationTracker;
}

export function createInteractionsProcessor(options: {
  store: SpanStore &
    InteractionStore &
    ReplicaStore &
    Pick<ConversationStore, 'findDueConversations' | 'closeConversations'>;
  config: Omit<InteractionsProcessorConfig, 'conversationIdleMs'> &
    Partial<Pick<InteractionsProcessorConfig, 'conversationIdleMs'>> &
    InteractionsProcessorTuning;
  /** Where the interactions new to the ledger go (the evaluation processor, the exporters). */
  next?: InteractionsConsumer;
  clock?: () => number;
  logger?: Logger;
}): InteractionsProcessor {
  const { store, config, next } = options;
  const clock = options.clock ?? Date.now;
  const logger = options.logger ?? createLogger();
  const maxQueued = config.maxQueuedBatches ?? DEFAULT_MAX_QUEUED_BATCHES;
  /** Pending traces from which new batches are refused (429): 90% of max_pending_traces. */
  const pendingHighWater = Math.max(1, Math.floor(config.maxPendingTraces * PENDING_HIGH_WATER));
  let lastEvictionLog = 0;
  const assembler = createAssembler({
    settleMs: config.settleMs,
    decisionWaitMs: config.decisionWaitMs,
    maxPendingTraces: config.maxPendingTraces,
    granularityMs: DECISION_GRANULARITY_MS,
    onEvict: (traceId, pendingTraces) => {
      const now = clock();
      if (now - lastEvictionLog >= 10_000) {
        lastEvictionLog = now;
        logger.warn(
          `interactions: ${pendingTraces} pending traces exceed the ` +
            `limit; trace ${traceId} was decided early as a timeout ` +
            `(${assembler.stats.evictedTraces} so far; raise processors::interactions::max_pending_traces)`,
        );
      }
    },
  });
  const stats: InteractionsProcessorStats = {
    spansReceived: 0,
    interactions: 0,
    interactionsFailed: 0,
    lateSpans: 0,
    evictedTraces: 0,
    tracesSplit: 0,
  };
  const splits = createSplitTraces({ store, logger, clock });
  const conversations = createConversationTracker({
    store,
    idleMs: config.conversationIdleMs ?? DEFAULT_CONVERSATION_IDLE_MS,
    isPending: (conversationId) => assembler.hasPendingConversation(conversationId),
    ...(next?.consumeConversations ? { next: next as ConversationsConsumer } : {}),
    logger,
  });
  const conversationScanMs = config.conversationScanMs ?? DEFAULT_CONVERSATION_SCAN_MS;
  let lastConversationScan = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let stopped = false;
  let ticking: Promise<void> | undefined;

  // Appends run concurrently (the store orders its writes); what must not happen is releasing a
  // trace's stored spans while new spans of it are being stored or are pending. Both are checked
  // right before a release is handed to the store, whose writes run in the order they are given.
  const appending = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();

  async function consume(spans: SpanData[]): Promise<void> {
    if (stopped)
      throw new BackpressureError('interactions: the collector is shutting down', {
        retryAfterSeconds: 5,
        status: 503,
      });
    if (!started)
      throw new BackpressureError('interactions: the collector is still recovering pending spans', {
        retryAfterSeconds: 1,
        status: 503,
      });
    if (spans.length === 0) return;
    if (inFlight.size >= maxQueued) {
      throw new BackpressureError(`interactions: ${inFlight.size} batches are waiting for the ledger store`, {
        retryAfterSeconds: 1,
      });
    }
    // Recording is not keeping up (a slow ledger): senders wait and retry rather than the pending
    // traces growing until the oldest are evicted undecided.
    if (assembler.pendingTraces() >= pendingHighWater) {
      throw new BackpressureError(
        `interactions: ${assembler.pendingTraces()} traces are pending (max_pending_traces ` +
          `${config.maxPendingTraces}); the ledger is not keeping up`,
        { retryAfterSeconds: 1 },
      );
    }
    const work = append(spans);
    inFlight.add(work);
    try {
      await work;
    } finally {
      inFlight.delete(work);
    }
  }

  async function append(spans: SpanData[]): Promise<void> {
    const traceIds = new Set<string>();
    for (const span of spans) traceIds.add(span.traceId);
    for (const traceId of traceIds) appending.set(traceId, (appending.get(traceId) ?? 0) + 1);
    let late: ReturnType<Assembler['add']>['late'] = [];
    try {
      await store.appendSpans(spans);
      stats.spansReceived += spans.length;
      late = assembler.add(spans, clock()).late;
    } finally {
      for (const traceId of traceIds) {
        const count = appending.get(traceId)! - 1;
        if (count === 0) appending.delete(traceId);
        else appending.set(traceId, count);
      }
    }
    if (late.length > 0) {
      stats.lateSpans += late.length;
      await store.putLateSpans(late);
      // Late spans are kept in their own table; their write-ahead rows can go unless more is pending.
      await release([...new Set(late.map((entry) => entry.span.traceId))]);
    }
  }

  /** Releases the stored spans of traces that have nothing pending and nothing being stored. */
  function release(traceIds: string[]): Promise<void> {
    const releasable = traceIds.filter((traceId) => !appending.has(traceId) && !assembler.isPending(traceId));
    return releasable.length > 0 ? store.releaseTraces(releasable) : Promise.resolve();
  }

  /** Records what was decided; resolves true when a new interaction ended its conversation. */
  async function record(decisions: Decisions): Promise<boolean> {
    // One query per batch of decided traces, on a store shared by replicas only (split-traces.ts).
    const elsewhere = await splits.find(decidedTraces(decisions));
    if (decisions.interactions.length === 0 && !elsewhere?.traces.size) {
      await release(decisions.releasedTraces);
      return false;
    }
    const stored = new Map<string, Map<string, SpanData>>();
    const remember = (traceId: string, list: SpanData[]) => {
      const spans = new Map<string, SpanData>();
      for (const span of list) spans.set(span.spanId, span);
      stored.set(traceId, spans);
      return spans;
    };
    // The spans of every trace with a decided interaction, in one read (one round trip on PostgreSQL).
    const wanted = new Set(decisions.interactions.map((decision) => decision.traceId));
    for (const [traceId, list] of await store.loadSpansOfTraces([...wanted])) remember(traceId, list);
    const spansOf = async (traceId: string): Promise<Map<string, SpanData>> =>
      stored.get(traceId) ?? remember(traceId, wanted.has(traceId) ? [] : await store.loadTraceSpans(traceId));
    const byTrace = new Map<string, InteractionDecision[]>();
    for (const decision of decisions.interactions) {
      const list = byTrace.get(decision.traceId);
      if (list) list.push(decision);
      else byTrace.set(decision.traceId, [decision]);
    }
    const records: InteractionRecord[] = [];
    for (const [traceId, list] of byTrace) {
      const spans = await spansOf(traceId);
      for (const decision of list) {
        const built = buildFromDecision(decision, spans);
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
      const late = splits.keepAsLate(traceId, unassigned, await spansOf(traceId), found);
      if (late.length > 0) kept.set(traceId, late);
    }
    const existing =
      records.length > 0 ? await store.existingInteractionIds(records.map((r) => r.interactionId)) : new Set<string>();
    if (records.length > 0) await store.putInteractions(records);
    const late = [...kept.values()].flat();
    if (late.length > 0) {
      await store.putLateSpans(late);
      stats.lateSpans += late.length;
    }
    if (elsewhere) {
      splits.report(elsewhere, kept);
      stats.tracesSplit = splits.count;
    }
    await release(decisions.releasedTraces);
    const fresh = records.filter((r) => !existing.has(r.interactionId));
    stats.interactions += fresh.length;
    stats.interactionsFailed += fresh.filter((r) => r.failed).length;
    stats.evictedTraces = assembler.stats.evictedTraces;
    if (fresh.length > 0 && next) await next.consumeInteractions(fresh);
    return fresh.some((r) => r.conversationId !== undefined && endsConversation(r.attributes));
  }

  async function closeConversations(now: number, ended: boolean): Promise<void> {
    if (!ended && now - lastConversationScan < conversationScanMs) return;
    lastConversationScan = now;
    try {
      await conversations.check(now, { turnEnded: ended });
    } catch (error) {
      logger.error(`interactions: closing conversations that are over failed: ${String(error)} (retrying)`);
    }
  }

  function tick(): Promise<void> {
    // Ticks never overlap: a slow one makes the next wait.
    ticking ??= Promise.resolve()
      .then(async () => {
        const now = clock();
        let ended = false;
        try {
          ended = await record(assembler.collectDue(now));
        } catch (error) {
          logger.error(`interactions: completing interactions failed: ${String(error)}`);
        }
        await closeConversations(now, ended);
      })
      .finally(() => {
        ticking = undefined;
      });
    return ticking;
  }

  const processor: InteractionsProcessor = {
    consume,
    tick,
    assembler,
    stats,
    conversations,
    ready: () => started && !stopped,
    async start() {
      if (started) return;
      const replay = await store.loadPendingSpans();
      if (replay.length > 0) {
        assembler.add(replay, clock());
        logger.info(
          `interactions: recovered ${replay.length} stored spans of ${assembler.pendingTraces()} pending traces`,
        );
      }
      started = true;
      // Completed interactions are handed on within ~50 ms of their decision (verdict lag), whatever
      // the settle window; a tick with nothing due costs a few map look-ups.
      const tickMs = config.tickMs ?? Math.max(10, Math.min(50, Math.floor(config.settleMs / 4)));
      timer = setInterval(() => void tick(), tickMs);
      timer.unref();
    },
    async shutdown() {
      if (stopped) return;
      stopped = true;
      if (timer) clearInterval(timer);
      await ticking;
      // Pending traces stay in the store: the next start replays them.
      await Promise.allSettled([...inFlight]);
    },
  };
  return processor;
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
