/**
 * An outage is not a verdict: an evaluation that failed because its model is unavailable runs
 * again after a backoff (its attempt is not counted again), for up to `retryForMs` since its first
 * such failure; only then is the failure recorded. The runtime asks `defer` about every failed
 * outcome and gets the evaluation back through `rerun` when its wait is over.
 */
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { Logger } from '../../logger.ts';
import type { Clock, Timer } from './clock.ts';

/** At most one "model unavailable" warning this often (an outage fails every judge at once). */
const LOG_EVERY_MS = 10_000;
export const DEFAULT_UNAVAILABLE_BACKOFF = { baseMs: 1_000, maxMs: 30_000 };

export interface OutageDeferrals {
  /** Defers the evaluation when `error` says its model is unavailable and its time is not up; whether it did. */
  defer(evaluation: QueuedEvaluation, error: unknown): boolean;
  /** Its outcome is being recorded: forget its outage history. */
  forget(evaluationId: string): void;
  /** Stops every wait; resolves with the ids that were waiting (they stay queued in the ledger). */
  stop(): string[];
  /** Evaluations waiting for their model now. */
  waiting(): number;
}

export function createOutageDeferrals(options: {
  retryForMs: number;
  backoff?: { baseMs: number; maxMs: number };
  clock: Clock;
  logger: Logger;
  /** Called when an evaluation's wait is over. */
  rerun(evaluation: QueuedEvaluation): void;
}): OutageDeferrals {
  const { retryForMs, clock, logger } = options;
  const backoff = options.backoff ?? DEFAULT_UNAVAILABLE_BACKOFF;
  const deferrals = new Map<string, { since: number; count: number; timer?: Timer }>();
  let waiting = 0;
  let loggedAt = -Infinity;

  return {
    defer(evaluation, error) {
      if (!isModelUnavailable(error)) return false;
      const now = clock.now();
      const deferral = deferrals.get(evaluation.evaluationId) ?? { since: now, count: 0 };
      if (now - deferral.since >= retryForMs) return false;
      deferral.count++;
      const delayMs = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(deferral.count - 1, 20));
      // Not in the background: `idle()` (a backfill) waits for the evaluations it holds.
      deferral.timer = clock.setTimeout(() => {
        deferral.timer = undefined;
        waiting--;
        options.rerun(evaluation);
      }, delayMs);
      deferrals.set(evaluation.evaluationId, deferral);
      waiting++;
      if (now - loggedAt >= LOG_EVERY_MS) {
        loggedAt = now;
        logger.warn(
          `evaluation ${evaluation.evaluationId} (${evaluation.evaluatorId}): the model is unavailable ` +
            `(${error instanceof Error ? error.message : String(error)}); ` +
            `running it again in ${Math.round(delayMs / 100) / 10} s (${waiting} evaluation(s) waiting for the ` +
            `model; each is retried for up to ${Math.round(retryForMs / 60_000)} min)`,
        );
      }
      return true;
    },
    forget(evaluationId) {
      deferrals.delete(evaluationId);
    },
    stop() {
      const stopped: string[] = [];
      for (const [evaluationId, deferral] of deferrals) {
        if (!deferral.timer) continue;
        deferral.timer.cancel();
        stopped.push(evaluationId);
      }
      deferrals.clear();
      waiting = 0;
      return stopped;
    },
    waiting: () => waiting,
  };
}

/**
 * Whether a failure is the model being unavailable: somewhere in the error's cause chain, an error
 * marked `retryable` (the model client's `ModelCallError` after its own retries of a 429, 5xx,
 * 529 or connection error). A 400, an unreadable reply or an evaluator's own bug is not.
 */
export function isModelUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if ((current as { retryable?: unknown }).retryable === true) return true;
  }
  return false;
}
