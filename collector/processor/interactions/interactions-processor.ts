/**
 * The interactions processor: the `processors.interactions` stage. It stores every received span
 * durably before acknowledging it (the write-ahead path), feeds the assembler with the spans'
 * heads, keeps the received bytes in memory while they fit (`held-spans.ts`), and on each tick
 * builds the records of completed interactions (from memory, else from the stored spans), writes
 * them to the ledger and hands the new ones to the next stage (evaluation): `recording.ts`.
 *
 * Appends run concurrently (the store orders its own writes). A trace's stored spans are released
 * only when nothing of it is pending in the assembler and no append carrying it is in flight.
 * Ticks overlap: a tick decides and builds while the ticks before it still build and write, up to
 * TICKS_IN_FLIGHT of them; writes keep tick order (tick-order.ts).
 *
 * Conversations: the store records each turn with its interaction; after recording a turn that
 * ends its conversation, and every `conversationScanMs` otherwise, the tick asks the conversation
 * tracker to close what is over (conversation-tracker.ts), once the interactions decided in the
 * same tick are recorded.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { SpanData } from '../../model/span.ts';
import type { SpanBatch } from '../../model/span-batch.ts';
import type { ConversationStore } from '../../ledger/conversation-store.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { ReplicaStore } from '../../ledger/replica-store.ts';
import type { LateSpan, SpanStore } from '../../ledger/span-store.ts';
import { BackpressureError, type Lifecycle, type SpanConsumer } from '../../pipeline/consumer.ts';
import { createAdmission } from './admission.ts';
import { createAssembler, type AddResult, type Assembler } from './assembler.ts';
import { CLASSIFIED_ATTRIBUTES } from './classify.ts';
import { createHeldSpans } from './held-spans.ts';
import { createIntake } from './intake.ts';
import type { WaitingTraces } from './waiting-traces.ts';
import type { PreparedSpans } from './prepared-spans.ts';
import { createRecording, type PreparedTick } from './recording.ts';
import { createThreadRecorder } from './recorder.ts';
import { createTickOrder } from './tick-order.ts';
import {
  DECISION_GRANULARITY_MS,
  DEFAULT_CONVERSATION_SCAN_MS,
  DEFAULT_MAX_QUEUED_BATCHES,
  MAX_TICK_SPANS,
  TICKS_IN_FLIGHT,
  type InteractionsProcessorTuning,
} from './tuning.ts';
import { createLogger, type Logger } from '../../logger.ts';
import { createSplitTraces } from './split-traces.ts';
import {
  DEFAULT_CONVERSATION_IDLE_MS,
  DEFAULT_MAX_WAITING_TRACES,
  DEFAULT_PENDING_SPANS_MEMORY_BYTES,
  DEFAULT_PENDING_SPANS_MEMORY_BYTES_SERVER,
  type InteractionsProcessorConfig,
} from './config.ts';
import {
  createConversationTracker,
  type ConversationsConsumer,
  type ConversationTracker,
} from './conversation-tracker.ts';

type OptionalKeys = 'conversationIdleMs' | 'pendingSpansMemoryBytes' | 'maxWaitingTraces';

export interface InteractionsConsumer extends Partial<ConversationsConsumer> {
  /** Records new to the ledger (not re-completed after restarts); content read after it resolves: `holdRecords`. */
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
  /** Traces acknowledged past `max_pending_traces`, waiting for the assembler's room (intake.ts). */
  readonly waiting: Pick<WaitingTraces, 'size' | 'spans'>;
  readonly stats: InteractionsProcessorStats;
  /** Closes conversations that are over (its `stats` count them). */
  readonly conversations: ConversationTracker;
}

export function createInteractionsProcessor(options: {
  store: SpanStore &
    InteractionStore &
    ReplicaStore &
    Pick<ConversationStore, 'findDueConversations' | 'closeConversations'>;
  config: Omit<InteractionsProcessorConfig, OptionalKeys> &
    Partial<Pick<InteractionsProcessorConfig, OptionalKeys>> &
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
  const limits = {
    maxPendingTraces: config.maxPendingTraces,
    maxWaitingTraces: config.maxWaitingTraces ?? DEFAULT_MAX_WAITING_TRACES,
  };
  const admission = createAdmission(limits);
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
  const intake = createIntake(assembler, limits);
  const stats: InteractionsProcessorStats = {
    spansReceived: 0,
    interactions: 0,
    interactionsFailed: 0,
    lateSpans: 0,
    evictedTraces: 0,
    tracesSplit: 0,
  };
  const splits = createSplitTraces({ store, logger, clock });
  const held = createHeldSpans(
    config.pendingSpansMemoryBytes ??
      (store.readsSpansFromServer ? DEFAULT_PENDING_SPANS_MEMORY_BYTES_SERVER : DEFAULT_PENDING_SPANS_MEMORY_BYTES),
  );
  const recorder =
    config.recorder === 'thread'
      ? createThreadRecorder({ compressRecords: store.compressesRecords })
      : typeof config.recorder === 'object'
        ? config.recorder
        : undefined;
  const recording = createRecording({
    ledger: store,
    held,
    splits,
    logger,
    stats,
    next,
    ...(recorder ? { recorder } : {}),
  });
  const conversations = createConversationTracker({
    store,
    idleMs: config.conversationIdleMs ?? DEFAULT_CONVERSATION_IDLE_MS,
    isPending: (id) => assembler.hasPendingConversation(id) || intake.waiting.hasConversation(id),
    ...(next?.consumeConversations ? { next: next as ConversationsConsumer } : {}),
    logger,
  });
  const conversationScanMs = config.conversationScanMs ?? DEFAULT_CONVERSATION_SCAN_MS;
  let lastConversationScan = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let stopped = false;
  /** The tick reading and building, until it has: another tick meanwhile is that one. */
  let ticking: Promise<void> | undefined;
  const ticks = createTickOrder(TICKS_IN_FLIGHT);
  /** Traces decided by a tick that has not released them yet: no late span releases them meanwhile. */
  const recordingTraces = new Map<string, number>();

  // Appends run concurrently (the store orders its writes); what must not happen is releasing a
  // trace's stored spans while new spans of it are being stored or are pending. Both are checked
  // right before a release is handed to the store, whose writes run in the order they are given.
  const appending = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();

  async function consume(batch: SpanBatch): Promise<void> {
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
    if (batch.spanCount === 0) return;
    if (inFlight.size >= maxQueued) {
      throw new BackpressureError(`interactions: ${inFlight.size} batches are waiting for the ledger store`, {
        retryAfterSeconds: 1,
      });
    }
    // What deciding needs, made before the spans are stored: their heads are not kept meanwhile.
    const prepared = assembler.prepare(batch.heads);
    // Recording is not keeping up (a slow ledger): senders wait and retry rather than the pending
    // traces growing until the oldest are evicted undecided (admission.ts).
    let adding = 0;
    for (const traceId of prepared.traceIds)
      if (!assembler.isPending(traceId) && !intake.waiting.has(traceId)) adding++;
    const admitted = admission.admit(intake.held(), adding);
    if (admitted instanceof BackpressureError) throw admitted;
    batch.dropHeads();
    const work = append(batch, prepared);
    inFlight.add(work);
    try {
      await work;
    } finally {
      inFlight.delete(work);
      admitted.release();
    }
  }

  async function append(batch: SpanBatch, prepared: PreparedSpans): Promise<void> {
    const traceIds = prepared.traceIds;
    for (const traceId of traceIds) appending.set(traceId, (appending.get(traceId) ?? 0) + 1);
    let late: LateSpan[] = [];
    try {
      const stored = await store.appendSpans(batch);
      stats.spansReceived += batch.spanCount;
      const { late: added, waited } = intake.add(prepared, clock());
      // Held while it fits, as stored when the store re-encodes it; a batch not held lets go of its
      // traces, and so do traces that wait (read back when decided, as they are after a restart).
      const holding = waited.length < traceIds.length;
      if (holding && stored) held.holdRows(stored);
      else if (holding && batch.byTrace) held.hold(batch.byTrace);
      else held.drop(traceIds);
      if (holding && waited.length > 0) held.drop(waited);
      if (added.length > 0) late = lateSpans(batch, added);
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

  /**
   * Releases the stored spans of traces that have nothing pending, nothing being stored and no tick
   * recording them (that tick releases them once their records are stored).
   */
  function release(traceIds: string[]): Promise<void> {
    const releasable = traceIds.filter(
      (traceId) =>
        !appending.has(traceId) &&
        !assembler.isPending(traceId) &&
        !intake.waiting.has(traceId) &&
        !recordingTraces.has(traceId),
    );
    if (releasable.length === 0) return Promise.resolve();
    held.drop(releasable);
    return store.releaseTraces(releasable);
  }

  function countRecording(traceIds: Iterable<string>, by: 1 | -1): void {
    for (const traceId of traceIds) {
      const count = (recordingTraces.get(traceId) ?? 0) + by;
      if (count > 0) recordingTraces.set(traceId, count);
      else recordingTraces.delete(traceId);
    }
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
    if (ticking) return ticking;
    let prepared!: () => void;
    const preparing = new Promise<void>((resolve) => {
      prepared = resolve;
    });
    let more = false;
    const run = ticks.run(async (slot) => {
      let decided: Set<string> | undefined;
      let now = clock();
      let ended = false;
      try {
        await slot.mayDecide;
        now = clock();
        const decisions = assembler.collectDue(now, MAX_TICK_SPANS);
        // Room made by what is decided goes to the traces waiting longest.
        intake.admitWaiting(now);
        more = decisions.more;
        decided = new Set([...decisions.releasedTraces, ...decisions.interactions.map((d) => d.traceId)]);
        countRecording(decided, 1);
        // What is decided is handed to the recorder when prepare returns: the next tick may decide
        // while this one's records are built.
        const building = recording.prepare(decisions);
        prepared();
        const ready: PreparedTick = await building;
        await slot.mayStore;
        // The ledger takes writes in call order: once this tick's has been called (store is async,
        // it cannot throw before), the next tick may call its own while this one's is written.
        const storing = recording.store(ready);
        slot.stored();
        const stored = await storing;
        await slot.mayFinish;
        ended = await recording.finish(ready, stored, (traceIds) => {
          countRecording(decided!, -1);
          decided = undefined;
          return release(traceIds);
        });
        stats.evictedTraces = assembler.stats.evictedTraces;
      } catch (error) {
        logger.error(`interactions: completing interactions failed: ${String(error)}`);
      } finally {
        prepared();
        slot.stored();
        if (decided) countRecording(decided, -1);
      }
      // Once this tick's interactions are recorded (and those of every tick before it).
      await closeConversations(now, ended);
    });
    ticking = run;
    void preparing.then(() => {
      if (ticking === run) ticking = undefined;
      // More was due than one tick takes: the next one starts now, not at the next interval.
      if (more && !stopped) setImmediate(() => void tick());
    });
    return run;
  }

  const processor: InteractionsProcessor = {
    consume,
    // What the classifier reads: receivers decode only these before the spans are stored.
    headAttributes: CLASSIFIED_ATTRIBUTES,
    tick,
    assembler,
    waiting: intake.waiting,
    stats,
    conversations,
    ready: () => started && !stopped,
    async start() {
      if (started) return;
      // A row at a time: the backlog is never all in memory, only its skeleton.
      let replayed = 0;
      // Past max_pending_traces, traces wait as they did before (decided cache empty: nothing is late).
      await store.forEachPendingSpans((spans) => {
        intake.add(assembler.prepare(spans), clock());
        replayed += spans.length;
      });
      if (replayed > 0) {
        logger.info(
          `interactions: recovered ${replayed} stored spans of ${assembler.pendingTraces()} pending traces` +
            (intake.waiting.size > 0 ? ` and ${intake.waiting.size} waiting` : ''),
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
      await ticks.drained();
      // Pending traces stay in the store: the next start replays them.
      await Promise.allSettled([...inFlight]);
      await recorder?.close();
    },
  };
  return processor;
}

/** The late spans the assembler found among a batch's heads, decoded in full from the batch. */
function lateSpans(batch: SpanBatch, late: AddResult['late']): LateSpan[] {
  const byId = new Map<string, SpanData>();
  for (const span of batch.spans()) {
    const key = `${span.traceId}/${span.spanId}`;
    if (!byId.has(key)) byId.set(key, span);
  }
  return late.map(({ traceId, spanId, interactionId }) => ({ span: byId.get(`${traceId}/${spanId}`)!, interactionId }));
}
