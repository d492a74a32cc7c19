/**
 * The interactions processor's bounds that have no YAML key: its defaults, and what tests tighten.
 */
import type { Recorder } from './recorder.ts';

/** Batches waiting for the store before the receiver is told to back off. */
export const DEFAULT_MAX_QUEUED_BATCHES = 256;
/**
 * The assembler's timer granularity: a decision falls due at most this much after its settle
 * window, before the tick that takes it (the verdict lag of an interaction, and of a conversation
 * its last turn ends, is settle + this + the tick, at most).
 */
export const DECISION_GRANULARITY_MS = 25;
/**
 * Spans a tick decides at most: a backlog (a restart replaying traces, a burst) is recorded in ticks
 * of bounded memory and event-loop time, each one transaction (a fifth less WAL than at 5,000).
 */
export const MAX_TICK_SPANS = 10_000;
/**
 * Ticks whose records are being built or written at once, at most (three of 10,000 spans hold
 * what four of 5,000 did). With fewer, recording fell behind sustained ingest while the recorder
 * thread sat idle (docs/benchmarks.md, "Ingest").
 */
export const TICKS_IN_FLIGHT = 3;
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
  /**
   * Where records are built: `thread` (what the collector runs) on a recorder thread of its own,
   * started by the first tick with decisions; `inline` (default) on the event loop; or this recorder.
   */
  recorder?: 'thread' | 'inline' | Recorder;
}
