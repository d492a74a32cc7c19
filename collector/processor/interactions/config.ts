/**
 * `processors.interactions`: when the spans of an interaction are complete, how many traces may
 * wait in memory, and when a conversation without an explicit end is over.
 */
import { section, whenRead } from '../../config/schema-kit.ts';
import { count, duration, size } from '../../config/values.ts';

export const DEFAULT_SETTLE_MS = 2_000;
export const DEFAULT_DECISION_WAIT_MS = 30_000;
export const DEFAULT_MAX_PENDING_TRACES = 100_000;
/**
 * Traces acknowledged past `max_pending_traces` that wait, stored, for the assembler's room: a
 * burst is taken at the speed of the durable path instead of the speed of recording.
 * docs/benchmarks.md, "Ingest".
 */
export const DEFAULT_MAX_WAITING_TRACES = 100_000;
/**
 * Received spans kept in memory until recorded, by default: 16 MiB with a SQLite ledger file (its
 * span log reads them back from the OS's file cache), 24 MiB with PostgreSQL (a read back is a
 * query; what is held is the store's compressed rows, a ninth to a half of the received bytes,
 * so 24 MiB holds the traces of 48–200 MiB of received requests).
 * docs/benchmarks.md, "Ingest" and "Scale-out".
 */
export const DEFAULT_PENDING_SPANS_MEMORY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_PENDING_SPANS_MEMORY_BYTES_SERVER = 24 * 1024 * 1024;
/** A conversation with no new turn for this long after its last one completed is over. */
export const DEFAULT_CONVERSATION_IDLE_MS = 900_000;

/** `processors.interactions`, normalised. */
export interface InteractionsProcessorConfig {
  /** `settle`: quiet time after the last span of an interaction's subtree before it completes. */
  settleMs: number;
  /** `decision_wait`: after the last span of a trace, complete what is left as `timeout`. */
  decisionWaitMs: number;
  /** `max_pending_traces`: bound on traces in the assembler, waiting for their interactions' decision. */
  maxPendingTraces: number;
  /**
   * `max_waiting_traces`: traces acknowledged past `max_pending_traces`, stored, that wait for the
   * assembler's room (a few dozen bytes a span in memory); past both, requests are refused (429).
   * With 0, none wait: the assembler's oldest are evicted instead.
   */
  maxWaitingTraces: number;
  /**
   * `pending_spans_memory`: received spans kept in memory, as received, until their interactions
   * are recorded; spans past it are read back from the ledger when their interaction is built.
   * Unset: the default for the ledger (DEFAULT_PENDING_SPANS_MEMORY_BYTES…).
   */
  pendingSpansMemoryBytes?: number;
  /** `conversation_idle`: a conversation with no turn for this long after its last one is over. */
  conversationIdleMs: number;
}

export const interactionsProcessorSchema = section({
  settle: duration().default(DEFAULT_SETTLE_MS),
  decision_wait: duration({ positive: true }).default(DEFAULT_DECISION_WAIT_MS),
  max_pending_traces: count(1).default(DEFAULT_MAX_PENDING_TRACES),
  max_waiting_traces: count(0).default(DEFAULT_MAX_WAITING_TRACES),
  pending_spans_memory: size({ allowZero: true }).optional(),
  conversation_idle: duration({ positive: true }).default(DEFAULT_CONVERSATION_IDLE_MS),
})
  .superRefine(
    (processor, context) => {
      if (processor.settle >= processor.decision_wait) {
        context.addIssue({
          code: 'custom',
          path: ['settle'],
          message:
            `must be shorter than decision_wait (settle ${processor.settle}ms, decision_wait ` +
            `${processor.decision_wait}ms)`,
        });
      }
    },
    whenRead('settle', 'decision_wait'),
  )
  .transform(
    (processor): InteractionsProcessorConfig => ({
      settleMs: processor.settle,
      decisionWaitMs: processor.decision_wait,
      maxPendingTraces: processor.max_pending_traces,
      maxWaitingTraces: processor.max_waiting_traces,
      ...(processor.pending_spans_memory !== undefined
        ? { pendingSpansMemoryBytes: processor.pending_spans_memory }
        : {}),
      conversationIdleMs: processor.conversation_idle,
    }),
  );
