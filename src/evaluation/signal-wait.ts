/**
 * Waiting for an external party: a durable evaluator's step may park the evaluation until a named
 * signal arrives (a person's review, an approval, a callback) or a deadline passes:
 *
 * ```ts
 * onEvaluation() {
 *   return this.effects().awaitSignal('review', { timeout: '7d', resumeWith: this.recordReview });
 * }
 * recordReview(arrival: SignalArrival) {
 *   if (arrival.status === 'timed-out') return this.effects().inconclusive('not reviewed in time');
 *   …
 * }
 * ```
 * While it waits, the evaluation holds no run slot and nothing in memory: the collector saves it
 * in the ledger with its deadline, and resumes it with the step `resumeWith` names when the
 * signal is delivered (the step gets a `received` arrival with the signal's payload) or when the
 * deadline passes (a `timed-out` arrival). Time spent waiting does not count against the
 * evaluation timeout, which bounds the time the evaluation runs.
 *
 * `EvaluatorTestKit` and `DurableEvaluator.evaluate` run in memory, where no one can send a
 * signal: a wait ends at once, with the payload the test supplied for that signal (the kit's
 * `signals` option), else as timed out.
 */
import { DURATION_FORM, durationMs, type Duration } from '../config/duration.ts';
import { DurableEffectError } from './errors.ts';

/** What the step named by `resumeWith` receives as its parameter. */
export type SignalArrival =
  | {
      signal: string;
      status: 'received';
      /** What the sender delivered (JSON). */
      payload: unknown;
      /** ISO-8601: when it was delivered. */
      receivedAt: string;
    }
  | {
      signal: string;
      status: 'timed-out';
      /** ISO-8601: the deadline that passed. */
      deadline: string;
    };

export interface AwaitSignalOptions<Step> {
  /** How long to wait before resuming with a `timed-out` arrival: `'7d'`, `'30m'`, or milliseconds. */
  timeout: Duration;
  /** The declared step that resumes the evaluation (its method or its id); it receives a `SignalArrival`. */
  resumeWith: Step;
}

/** Longest wait: a year and a day (a deadline further out is a mistake, not a plan). */
export const MAX_SIGNAL_WAIT_MS = 366 * 86_400_000;
const SIGNAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const MAX_SIGNAL_NAME_LENGTH = 100;

/** A signal name and timeout, checked: a `DurableEffectError` after `where` names what is wrong. */
export function checkSignalWait(signal: unknown, timeout: unknown, where: string): { timeoutMs: number } {
  if (typeof signal !== 'string' || !SIGNAL_NAME.test(signal) || signal.length > MAX_SIGNAL_NAME_LENGTH) {
    throw new DurableEffectError(
      `${where}: awaitSignal: ${JSON.stringify(signal) ?? String(signal)} is not a signal name (letters, digits, ` +
        `".", "_", "-" and ":", at most ${MAX_SIGNAL_NAME_LENGTH}, as in "review")`,
    );
  }
  const ms = durationMs(timeout);
  if (ms === undefined || ms < 1 || ms > MAX_SIGNAL_WAIT_MS) {
    throw new DurableEffectError(
      `${where}: awaitSignal("${signal}"): timeout must be ${DURATION_FORM}, from 1ms to 366d (got ` +
        `${JSON.stringify(timeout) ?? String(timeout)})`,
    );
  }
  return { timeoutMs: Math.round(ms) };
}

/** Whether a value is a signal arrival (a step receiving its input checks with it). */
export function isSignalArrival(value: unknown): value is SignalArrival {
  if (typeof value !== 'object' || value === null) return false;
  const arrival = value as Record<string, unknown>;
  return typeof arrival.signal === 'string' && (arrival.status === 'received' || arrival.status === 'timed-out');
}
