/**
 * Whether the interactions processor takes a batch, against `max_pending_traces` and
 * `max_waiting_traces`: a batch is refused (429, `Retry-After: 1`) when the traces it would add,
 * with the traces held (pending in the assembler, and waiting for its room: intake.ts) and those
 * that batches being stored will add, would go past the two limits together. So what is held fills
 * both, and a batch taken never makes the assembler evict a trace early.
 *
 * Two exceptions keep a batch from waiting for ever: with nothing held and nothing being stored,
 * any batch is taken; and a batch adding more than a tenth of `max_pending_traces` needs room for a
 * tenth only (what goes past the limits then waits, or with no traces allowed to wait is evicted,
 * oldest first, counted and logged, docs/interactions.md). Without the second, such a batch would
 * wait until smaller ones left no room, which under sustained load is never.
 */
import { BackpressureError } from '../../pipeline/consumer.ts';

/** The room a large batch needs: this share of `max_pending_traces`. */
export const LARGE_BATCH_SHARE = 0.1;

export interface Admission {
  /**
   * A batch that would add `traces` traces to the `held` ones: the refusal when it may not be taken;
   * when it may, its traces are counted as coming until `release` is called, once (after they are
   * stored and added to the assembler or the waiting traces, or failed).
   */
  admit(held: number, traces: number): { release(): void } | BackpressureError;
}

export function createAdmission(limits: { maxPendingTraces: number; maxWaitingTraces: number }): Admission {
  const { maxPendingTraces, maxWaitingTraces } = limits;
  const largeBatch = Math.max(1, Math.ceil(maxPendingTraces * LARGE_BATCH_SHARE));
  const limit = maxPendingTraces + maxWaitingTraces;
  let coming = 0;
  return {
    admit(held, traces) {
      const holding = held + coming;
      if (holding > 0 && holding + Math.min(traces, largeBatch) > limit) {
        return new BackpressureError(
          `interactions: ${held} traces are pending or waiting and ${coming} more are being stored; ` +
            `this request adds ${traces} (max_pending_traces ${maxPendingTraces}, max_waiting_traces ` +
            `${maxWaitingTraces}); the ledger is not keeping up`,
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
