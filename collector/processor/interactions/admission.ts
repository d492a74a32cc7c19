/**
 * Whether the interactions processor takes a batch, against `max_pending_traces`: a batch is
 * refused (429, `Retry-After: 1`) when the traces it would add, with the traces pending and those
 * that batches being stored will add, would go past the limit. So the backlog fills the whole
 * limit, and a batch taken never makes the assembler evict a trace early.
 *
 * Two exceptions keep a batch from waiting for ever: with nothing pending and nothing being stored,
 * any batch is taken; and a batch adding more than a tenth of the limit needs room for a tenth only
 * (what goes past the limit then is evicted, oldest first, counted and logged, docs/interactions.md).
 * Without the second, such a batch would wait until smaller ones left no room, which under
 * sustained load is never.
 */
import { BackpressureError } from '../../pipeline/consumer.ts';

/** The room a large batch needs: this share of `max_pending_traces`. */
export const LARGE_BATCH_SHARE = 0.1;

export interface Admission {
  /**
   * A batch that would add `traces` traces to `pending`: the refusal when it may not be taken; when
   * it may, its traces are counted as coming until `release` is called, once (after they are stored
   * and added to the assembler, or failed).
   */
  admit(pending: number, traces: number): { release(): void } | BackpressureError;
}

export function createAdmission(maxPendingTraces: number): Admission {
  const largeBatch = Math.max(1, Math.ceil(maxPendingTraces * LARGE_BATCH_SHARE));
  let coming = 0;
  return {
    admit(pending, traces) {
      const held = pending + coming;
      if (held > 0 && held + Math.min(traces, largeBatch) > maxPendingTraces) {
        return new BackpressureError(
          `interactions: ${pending} traces are pending and ${coming} more are being stored; this ` +
            `request adds ${traces} (max_pending_traces ${maxPendingTraces}); the ledger is not keeping up`,
          { retryAfterSeconds: 1 },
        );
      }
      coming += traces;
      return {
        release() {
          coming -= traces;
        },
      };
    },
  };
}
