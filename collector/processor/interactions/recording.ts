/**
 * Recording a tick's decisions, in three steps so that ticks overlap: `prepare` reads and builds
 * (the records of each decided trace built by the recorder, from the bytes held in memory when they
 * are all there, else from the ledger in one read, at the same time as the split-trace check),
 * `store` writes the records, and `finish` writes late spans kept for another replica's
 * interactions, then releases, then hands the new records on. The processor prepares ticks while
 * earlier ones store and finish, stores in tick order (one tick's records after the previous
 * tick's: the ledger takes writes in call order, so a write may begin before the previous one has
 * ended), and finishes in tick order: a trace's spans are released only after its records
 * are stored, and records reach the next stage in the order they were decided.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { ReplicaStore, TracesElsewhere } from '../../ledger/replica-store.ts';
import type { LateSpan, SpanStore } from '../../ledger/span-store.ts';
import type { Logger } from '../../logger.ts';
import type { Decisions, InteractionDecision } from './assembler.ts';
import type { HeldSpans } from './held-spans.ts';
import { spansById, type BuiltInteraction, type BuiltTraces, type TraceToRecord } from './record-builder.ts';
import { createInlineRecorder, RecorderThreadError, type Recorder } from './recorder.ts';
import { holdContent, lazyRecord, type ContentHold } from './lazy-record.ts';
import type { SplitTraces } from './split-traces.ts';

export interface PreparedTick {
  /** Built, in the order decided. */
  built: BuiltInteraction[];
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

/** A tick's records once the ledger has them: the ids new to it, and the records for the next stage. */
export interface StoredTick {
  stored: Set<string>;
  /** Aligned with the prepared tick's `built` (empty without a next stage). */
  records: InteractionRecord[];
  /** The records' JSON, held until the next stage has them (then freed unless it holds them too). */
  content: ContentHold;
}

export interface Recording {
  prepare(decisions: Decisions): Promise<PreparedTick>;
  /** Writes the tick's records to the ledger (the processor calls it in tick order; calls may overlap). */
  store(prepared: PreparedTick): Promise<StoredTick>;
  /**
   * Late spans, then `release` (the tick's released traces), then the new records to the next
   * stage. Resolves true when a new interaction ended its conversation (the processor then closes
   * it at once).
   */
  finish(prepared: PreparedTick, stored: StoredTick, release: (traceIds: string[]) => Promise<void>): Promise<boolean>;
}

export function createRecording(options: {
  ledger: SpanStore & InteractionStore & ReplicaStore;
  held: HeldSpans;
  splits: SplitTraces;
  /** Where records are built (the processor's recorder thread); inline when absent. */
  recorder?: Recorder;
  logger: Logger;
  stats: RecordingStats;
  /** Where the records new to the ledger go (the processor's `next`). */
  next: { consumeInteractions(records: InteractionRecord[]): Promise<void> } | undefined;
}): Recording {
  const { ledger, held, splits, logger, stats, next } = options;
  const inline = createInlineRecorder();
  let recorder = options.recorder ?? inline;

  /**
   * Builds on the recorder; if its thread has failed, from then on inline, and this build again
   * from the ledger (the rows it was given may be gone by now).
   */
  async function build(traces: TraceToRecord[]): Promise<BuiltTraces> {
    if (traces.length === 0) return { built: [], incomplete: [], missingRoot: [] };
    try {
      return await recorder.build(traces);
    } catch (error) {
      if (!(error instanceof RecorderThreadError)) throw error;
      if (recorder !== inline) {
        logger.error(`${error.message}; building records on the event loop from now on`);
        recorder = inline;
      }
      const stored = await ledger.locateSpansOfTraces(traces.map((trace) => trace.traceId));
      try {
        return await inline.build(
          traces.map(({ traceId, decisions }) => ({
            traceId,
            decisions,
            rows: stored.get(traceId) ?? [],
            maybePartial: false,
          })),
        );
      } finally {
        ledger.releaseEncodedSpans(stored);
      }
    }
  }

  async function prepare(decisions: Decisions): Promise<PreparedTick> {
    const byTrace = new Map<string, InteractionDecision[]>();
    for (const decision of decisions.interactions) {
      const list = byTrace.get(decision.traceId);
      if (list) list.push(decision);
      else byTrace.set(decision.traceId, [decision]);
    }
    // Traces held in memory are built from there at once (the recorder reads the held bytes before
    // anything else can let them go); the others, and held ones missing a span their decisions name,
    // from the ledger, all in one read (one round trip on PostgreSQL), beside the split-trace check.
    const fromMemory: TraceToRecord[] = [];
    const unread: string[] = [];
    for (const [traceId, list] of byTrace) {
      const rows = held.partsOf(traceId);
      if (rows) fromMemory.push({ traceId, rows, decisions: list, maybePartial: true });
      else unread.push(traceId);
    }
    const builtFromMemory = build(fromMemory);
    // Awaited below; handled now so that a failed read first does not leave its failure unhandled.
    builtFromMemory.catch(() => undefined);
    // What is read from the ledger may be where the rows are rather than their bytes (a SQLite
    // ledger's span log): the recorder reads them during the build, and they are let go after it.
    const reading = readTraces(unread);
    let again: Map<string, TraceToRecord['rows']> | undefined;
    let first: BuiltTraces;
    let second: BuiltTraces;
    let elsewhere: TracesElsewhere | undefined;
    try {
      let read: Map<string, TraceToRecord['rows']>;
      [elsewhere, read] = await Promise.all([splits.find(decidedTraces(decisions)), reading]);
      first = await builtFromMemory;
      if (first.incomplete.length > 0) again = await readTraces(first.incomplete);
      const fromLedger = [...read, ...(again ?? [])].map(([traceId, rows]) => ({
        traceId,
        rows,
        decisions: byTrace.get(traceId)!,
        maybePartial: false,
      }));
      second = await build(fromLedger);
    } finally {
      const read = await reading.catch(() => undefined);
      if (read) ledger.releaseEncodedSpans(read);
      if (again) ledger.releaseEncodedSpans(again);
    }

    for (const interactionId of [...first.missingRoot, ...second.missingRoot]) {
      logger.error(`interactions: the stored spans of interaction ${interactionId} are missing; it was not recorded`);
    }
    const built = inDecisionOrder(byTrace, [...first.built, ...second.built]);

    // Spans of a split trace that belong to no interaction here join the other replica's record.
    const kept = new Map<string, LateSpan[]>();
    for (const [traceId, found] of elsewhere?.traces ?? []) {
      const unassigned = decisions.unassigned.get(traceId);
      if (!unassigned || found.recorded.length === 0) continue;
      const heldSpans = held.spansOf(traceId);
      let traceSpans = heldSpans && spansById(heldSpans);
      if (!traceSpans || !unassigned.every((id) => traceSpans!.has(id)))
        traceSpans = spansById(await ledger.loadTraceSpans(traceId));
      const late = splits.keepAsLate(traceId, unassigned, traceSpans, found);
      if (late.length > 0) kept.set(traceId, late);
    }
    return { built, kept, elsewhere, releasedTraces: decisions.releasedTraces };
  }

  /**
   * Each trace's stored rows, or where they are; a trace with none gets an empty list (its
   * interactions are reported). Let go of with `releaseEncodedSpans` once built.
   */
  async function readTraces(traceIds: string[]): Promise<Map<string, TraceToRecord['rows']>> {
    if (traceIds.length === 0) return new Map();
    const read = await ledger.locateSpansOfTraces(traceIds);
    return new Map(traceIds.map((traceId) => [traceId, read.get(traceId) ?? []]));
  }

  async function store(prepared: PreparedTick): Promise<StoredTick> {
    const { built } = prepared;
    // The rows' JSON may move to the ledger's writer thread and back while it is written: the
    // records are made of it once the write is answered (the rows then view it again).
    const stored =
      built.length > 0 ? await ledger.putEncodedInteractions(built.map((entry) => entry.row)) : new Set<string>();
    // The next stage takes records, their content parsed when first read (lazy-record.ts).
    const records = next ? built.map((entry) => lazyRecord(entry.head, entry.row.json)) : [];
    // Held from now: a tick that fails on the way leaves its buffers to the garbage collector.
    const content = holdContent(built.map((entry) => entry.row.json));
    return { stored, records, content };
  }

  async function finish(
    { built, kept, elsewhere, releasedTraces }: PreparedTick,
    { stored, records, content }: StoredTick,
    release: (traceIds: string[]) => Promise<void>,
  ): Promise<boolean> {
    const late = [...kept.values()].flat();
    if (late.length > 0) {
      await ledger.putLateSpans(late);
      stats.lateSpans += late.length;
    }
    if (elsewhere) {
      splits.report(elsewhere, kept);
      stats.tracesSplit = splits.count;
    }
    await release(releasedTraces);
    // New to the ledger: not those recorded before a restart replayed their spans.
    const fresh = built.flatMap((entry, index) => (stored.has(entry.row.interactionId) ? [index] : []));
    stats.interactions += fresh.length;
    stats.interactionsFailed += fresh.filter((index) => built[index].failed).length;
    if (fresh.length > 0 && next) await next.consumeInteractions(fresh.map((index) => records[index]));
    // The ledger and the next stage have the records: what nothing holds any more is freed now.
    content.release();
    return fresh.some((index) => built[index].endsConversation);
  }

  return { prepare, store, finish };
}

/** The built interactions in the order decided: trace by trace, each trace's in order. */
function inDecisionOrder(byTrace: Map<string, InteractionDecision[]>, built: BuiltInteraction[]): BuiltInteraction[] {
  const byInteraction = new Map(built.map((entry) => [entry.row.interactionId, entry]));
  const ordered: BuiltInteraction[] = [];
  for (const list of byTrace.values()) {
    for (const decision of list) {
      const entry = byInteraction.get(decision.interactionId);
      if (entry) ordered.push(entry);
    }
  }
  return ordered;
}

/** The traces a batch of decisions decided something of, each once. */
function decidedTraces(decisions: Decisions): string[] {
  const traceIds = new Set(decisions.releasedTraces);
  for (const decision of decisions.interactions) traceIds.add(decision.traceId);
  return [...traceIds];
}
