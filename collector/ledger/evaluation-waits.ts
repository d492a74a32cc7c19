/**
 * The waiting role of the ledger: durable evaluations parked on a signal (`awaitSignal` in
 * src/evaluation/signal-wait.ts), the signals delivered to them, and the indexed query of those
 * whose time to resume has come. A parked evaluation stays in the evaluation queue (its key still
 * held, its outcome not recorded) but is not returned by `loadQueuedEvaluations`: no runtime holds
 * it, in memory or by lease, while it waits. It becomes due when its deadline passes or when its
 * signal is delivered (its wake time moves to the delivery); `loadDueEvaluations` then returns it
 * with the signal, and a runtime starts it like any queued evaluation (`startEvaluations`).
 *
 * Replicas sharing the ledger share the waits: any of them may resume a due evaluation, and the
 * lease taken by `startEvaluations` makes one of them run it.
 */
import type { DurableProgress } from '../../src/model/records.ts';
import type { DeliveredSignal, QueuedEvaluation } from './evaluation-queue.ts';

export type { DeliveredSignal };

export interface SignalDelivery {
  evaluationId: string;
  signal: string;
  /** JSON. */
  payload: unknown;
  /** ISO-8601: when it is delivered; a wait whose deadline is at or before it is over. */
  at: string;
}

/**
 * `delivered`: it is kept with the evaluation, which resumes with it (at once if it waits for it,
 * else when it parks on that signal); `duplicate`: a signal was delivered to it already; `expired`:
 * it waited for this signal and its deadline passed; `unknown`: no queued evaluation has this id
 * (never queued, or its outcome is recorded).
 */
export type SignalDeliveryResult = 'delivered' | 'duplicate' | 'expired' | 'unknown';

export interface EvaluationWaits {
  /**
   * Parks evaluations, in one transaction: saves each one's progress (whose `awaiting` names the
   * signal and the deadline), gives up any lease on it and starts its attempts afresh (a wait ends
   * an attempt). It is due at its deadline, or at once when its signal was delivered before it
   * parked. A parked evaluation whose outcome is recorded meanwhile is left as it is.
   */
  parkEvaluations(parks: { seq: number; progress: DurableProgress }[]): Promise<void>;

  /**
   * Parked evaluations due at `now` (deadline passed, or signal delivered), earliest first, at
   * most `limit`, each with `progress` and, when one was delivered, `signal`. With `claimableBy`,
   * only those that owner could start (no lease, an expired one, or its own). Reads an index over
   * the parked ones only: the cost does not grow with the number of evaluations waiting.
   */
  loadDueEvaluations(query: {
    now: string;
    limit: number;
    claimableBy?: { owner: string; at: string };
  }): Promise<QueuedEvaluation[]>;

  /** Delivers a signal to a queued evaluation; one delivery per evaluation wins, the others are `duplicate`. */
  deliverSignal(delivery: SignalDelivery): Promise<SignalDeliveryResult>;
}
