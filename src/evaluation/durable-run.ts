/**
 * Runs a durable evaluation step by step: from `onEvaluation`, or from saved progress after a
 * restart. Each step runs under its timeout and the evaluation's; a failed step runs again as its
 * retry policy allows (after the policy's backoff, holding no run slot while it waits); after every
 * step that transitions, the progress (next step's id, its input, the state) is saved, and only
 * when the save resolved does the next step run.
 *
 * At least once per step: a step that was running when the process died runs again at the
 * restart (its side effects may happen twice); a completed step never runs again.
 *
 * A step may park the evaluation (`awaitSignal`): in the collector the run then ends `parked` with
 * the progress to keep (the runtime stores it with its deadline) and resumes later from that
 * progress with the signal's `arrival`; in memory (`awaitSignal` option) it goes on at once with
 * what the option answers. Time parked is added to `waitedMs` and extends the evaluation timeout.
 *
 * Shared by the collector's runtime (progress saved in the ledger, a run slot held per step) and
 * by `runEvaluator` / `EvaluatorTestKit` (in memory). Internal to Evalon.
 */
import type { DurableProgress, SignalWaitProgress } from '../model/records.ts';
import { type Position, readStepEffect, type StepAttempt } from './durable-step-effect.ts';
import type { DurableSettings } from './durable-settings.ts';
import {
  createStepTable,
  ENTER_STEP,
  ON_EVALUATION,
  type DeclaredStep,
  type DurableInstance,
  type StepScope,
  type StepTable,
} from './durable-steps.ts';
import { allowsRetry, retryDelayMs } from './retry-policy.ts';
import type { Evaluation } from './evaluation.ts';
import type { EvaluationContext } from './evaluation-context.ts';
import type { EvaluationOutcome } from '../model/records.ts';
import { DurableEffectError, EvaluatorFailedError, failureAttributes } from './errors.ts';
import type { SignalArrival } from './signal-wait.ts';

export interface DurableRunOptions {
  evaluatorId: string;
  evaluator: DurableInstance;
  /** Where to resume (saved by an earlier attempt); absent: start with `onEvaluation`. */
  progress?: DurableProgress;
  /** When this attempt started (ms since the epoch): the evaluation's first start when there is no progress. */
  startedAtMs: number;
  /** The definition's `timeoutMs`: evaluation and step timeout when `settings()` sets none. */
  defaultTimeoutMs: number;
  /** The context one step sees (the configuration resolved afresh), with that step's signal. */
  contextFor(signal: AbortSignal): EvaluationContext;
  /** Saves the progress after a step; the next step runs once it resolves. A rejection ends the run (rejected). */
  save(progress: DurableProgress): Promise<void>;
  /** Runs one step holding what a step needs (the collector's run slot). Default: runs it. */
  holdSlot?<T>(run: () => Promise<T>): Promise<T>;
  /** Stops the run from outside (the collector shutting down): the running step is aborted. */
  signal?: AbortSignal;
  clock?: () => number;
  /**
   * Resuming progress parked on a signal: what arrived (the signal, or its deadline). Without it,
   * parked progress ends the run `parked` again, nothing run.
   */
  arrival?: SignalArrival;
  /**
   * Runs signal waits in place (in memory): the run goes on with the arrival it answers. Without
   * it, a wait ends the run `parked` (the collector stores it and resumes it later).
   */
  awaitSignal?(wait: SignalWaitProgress): Promise<SignalArrival>;
}

export type DurableRunResult =
  | { stopped: true }
  | { stopped: false; parked: DurableProgress; completedSteps: number; outcome?: undefined }
  | {
      stopped: false;
      parked?: undefined;
      outcome: EvaluationOutcome;
      evaluation?: Evaluation;
      error?: unknown;
      completedSteps: number;
    };

export async function runDurableEvaluation(options: DurableRunOptions): Promise<DurableRunResult> {
  const { evaluator, evaluatorId } = options;
  const clock = options.clock ?? Date.now;
  const where = `evaluator ${evaluatorId}`;
  let settings: DurableSettings;
  let table: StepTable;
  try {
    settings = evaluator.settings();
  } catch (error) {
    return failed(0, error, `${where}: settings() threw: ${message(error)}`);
  }
  try {
    table = createStepTable(evaluator, settings, where);
  } catch (error) {
    return failed(0, error, message(error));
  }
  const evaluationTimeoutMs = settings.evaluationTimeoutMs ?? options.defaultTimeoutMs;
  const defaultStepTimeoutMs = settings.defaultStepTimeoutMs ?? options.defaultTimeoutMs;
  const firstStartedAt = options.progress?.firstStartedAt ?? new Date(options.startedAtMs).toISOString();
  const saved = options.progress;
  let position: Position = saved
    ? {
        step: saved.step,
        hasInput: 'input' in saved,
        input: saved.input,
        hasState: 'state' in saved,
        state: saved.state,
        completedSteps: saved.completedSteps,
        waitedMs: saved.waitedMs ?? 0,
      }
    : { step: ON_EVALUATION, hasInput: false, hasState: false, completedSteps: 0, waitedMs: 0 };
  // The evaluation timeout counts running time from the first start: time parked moves it on.
  const deadlineOf = (at: Position) => Date.parse(firstStartedAt) + evaluationTimeoutMs + at.waitedMs;
  let deadline = deadlineOf(position);
  if (saved) {
    // Saved by an earlier version: the id may be gone, or (saved before steps had ids) be a method's name.
    const step = table.forProgress(saved.step);
    if (!step) {
      const error = new DurableEffectError(
        `${where}: the saved progress names step "${saved.step}", which is neither a declared step id nor the name ` +
          `of a method declared as a step (keep the step's id, or its method's name, until evaluations saved before ` +
          'the change have finished)',
        { step: saved.step },
      );
      return failed(saved.completedSteps, error, error.message);
    }
    position = { ...position, step: step.id };
    if (saved.awaiting) {
      if (!options.arrival) return { stopped: false, parked: saved, completedSteps: saved.completedSteps };
      position = resumed(position, saved.awaiting, options.arrival);
      deadline = deadlineOf(position);
    }
  }
  const holdSlot = options.holdSlot ?? ((run) => run());

  for (;;) {
    if (options.signal?.aborted) return { stopped: true };
    const stepWhere = `${where}: step "${position.step}"`;
    if (clock() >= deadline) return timedOut(position, 'before it ran');
    const step = position.step === ON_EVALUATION ? undefined : table.forTransition(position.step, stepWhere);
    const policy = step?.retry ?? settings.retry;
    let attempt = 0;
    let result: StepAttempt;
    for (;;) {
      attempt++;
      const current = position;
      result = await holdSlot(() => runStep(current, step));
      if (options.signal?.aborted) return { stopped: true };
      if (result.ok || !result.retry || attempt >= policy.maximumAttempts || !allowsRetry(policy, result.error)) break;
      const delayMs = retryDelayMs(policy, attempt);
      if (clock() + delayMs >= deadline) {
        return timedOut(
          position,
          `while it waited ${delayMs} ms to retry (attempt ${attempt}: ${message(result.error)})`,
        );
      }
      if (!(await pause(delayMs, options.signal))) return { stopped: true };
    }
    if (!result.ok) {
      if (isTimeout(result.error) && result.byDeadline) return timedOut(position, 'while it ran');
      const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
      const cause = message(result.error);
      const detail = cause.startsWith(`${stepWhere}: `)
        ? cause.slice(stepWhere.length + 2)
        : withoutWhere(cause, where);
      return failed(position.completedSteps, result.error, `${stepWhere} failed${tries}: ${detail}`);
    }
    const effect = result.effect;
    if (effect.kind === 'complete') {
      return {
        stopped: false,
        outcome: { type: 'verdict', evaluation: effect.evaluation.toJSON() },
        evaluation: effect.evaluation,
        completedSteps: position.completedSteps + 1,
      };
    }
    if (effect.kind === 'inconclusive')
      return {
        stopped: false,
        outcome: { type: 'inconclusive', reason: effect.reason },
        completedSteps: position.completedSteps + 1,
      };
    if (effect.kind === 'await') {
      const since = clock();
      const wait: SignalWaitProgress = {
        signal: effect.signal,
        since: new Date(since).toISOString(),
        deadline: new Date(since + effect.timeoutMs).toISOString(),
      };
      if (!options.awaitSignal) {
        return {
          stopped: false,
          parked: { ...progressOf(effect.next, firstStartedAt), awaiting: wait },
          completedSteps: effect.next.completedSteps,
        };
      }
      const arrival = await options.awaitSignal(wait);
      position = resumed(effect.next, wait, arrival);
      deadline = deadlineOf(position);
      continue;
    }
    position = effect.next;
    await options.save(progressOf(position, firstStartedAt));
  }

  /** The position after a wait: the resume step, the arrival as its input, the time parked counted. */
  function resumed(at: Position, wait: SignalWaitProgress, arrival: SignalArrival): Position {
    const waited = Math.max(0, clock() - Date.parse(wait.since));
    return { ...at, hasInput: true, input: arrival, waitedMs: at.waitedMs + (Number.isFinite(waited) ? waited : 0) };
  }

  async function runStep(at: Position, step: DeclaredStep | undefined): Promise<StepAttempt> {
    if (options.signal?.aborted) return { ok: false, error: options.signal.reason, retry: false };
    const stepWhere = `${where}: step "${at.step}"`;
    const stepTimeoutMs = step?.timeoutMs ?? defaultStepTimeoutMs;
    const controller = new AbortController();
    const remaining = deadline - clock();
    const byDeadline = remaining < stepTimeoutMs;
    const timeoutMs = Math.max(0, Math.min(stepTimeoutMs, remaining));
    let timer: NodeJS.Timeout | undefined;
    let onStop: (() => void) | undefined;
    // A timer may fire a millisecond before the wall clock reaches the deadline: what the deadline
    // stopped is known from the timer, not from reading the clock again.
    let stoppedByDeadline = false;
    const aborted = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        stoppedByDeadline = byDeadline;
        const error = new EvaluatorFailedError(
          byDeadline
            ? `${stepWhere} was stopped by the evaluation timeout ` +
                `(${evaluationTimeoutMs} ms from the first start at ${firstStartedAt})`
            : `did not finish within ${timeoutMs} ms (step timeout)`,
        );
        error.name = 'TimeoutError';
        controller.abort(error);
        reject(error);
      }, timeoutMs);
      onStop = () => {
        controller.abort(options.signal?.reason);
        reject(
          new EvaluatorFailedError(`${stepWhere} was stopped (the collector is shutting down)`, {
            cause: options.signal?.reason,
          }),
        );
      };
      options.signal?.addEventListener('abort', onStop, { once: true });
    });
    aborted.catch(() => {});
    const scope: { -readonly [K in keyof StepScope]: StepScope[K] } = {
      where: stepWhere,
      step: at.step,
      context: undefined as unknown as EvaluationContext,
      state: at.state,
      hasState: at.hasState,
    };
    try {
      scope.context = options.contextFor(controller.signal);
      evaluator[ENTER_STEP](scope);
      const returned = await Promise.race([
        (async () => {
          if (!step) return evaluator.onEvaluation(scope.context);
          return at.hasInput ? step.run.call(evaluator, at.input) : step.run.call(evaluator);
        })(),
        aborted,
      ]);
      return { ok: true, effect: readStepEffect(returned, at, stepWhere, table) };
    } catch (error) {
      // A transition to a step that does not exist fails at once: running the step again cannot fix it.
      // Nor does a step stopped by the evaluation timeout get another run.
      const byDeadlineNow = stoppedByDeadline || clock() >= deadline;
      const permanent = (error instanceof DurableEffectError && error.step !== undefined) || byDeadlineNow;
      return { ok: false, error, retry: !permanent, byDeadline: byDeadlineNow };
    } finally {
      clearTimeout(timer);
      if (onStop) options.signal?.removeEventListener('abort', onStop);
      evaluator[ENTER_STEP](undefined);
    }
  }

  function timedOut(at: Position, when: string): DurableRunResult {
    const error = new EvaluatorFailedError(
      `${where}: the evaluation did not finish within ${evaluationTimeoutMs} ms of its first start at ` +
        `${firstStartedAt} (evaluation timeout, step "${at.step}" ${when})`,
    );
    error.name = 'TimeoutError';
    return failed(at.completedSteps, error, error.message);
  }
}

function failed(completedSteps: number, error: unknown, text: string): DurableRunResult {
  const attributes = failureAttributes(error);
  const errorType = error instanceof Error ? error.name : typeof error;
  return {
    stopped: false,
    outcome: { type: 'failed', error: text, errorType, ...(attributes ? { attributes } : {}) },
    error,
    completedSteps,
  };
}

function progressOf(position: Position, firstStartedAt: string): DurableProgress {
  return {
    step: position.step,
    ...(position.hasInput ? { input: position.input } : {}),
    ...(position.hasState ? { state: position.state } : {}),
    completedSteps: position.completedSteps,
    firstStartedAt,
    ...(position.waitedMs > 0 ? { waitedMs: position.waitedMs } : {}),
  };
}

/** Waits `ms`; false when `signal` stopped the wait. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function message(error: unknown): string {
  return error instanceof Error ? error.message || error.name : `threw a non-error value: ${describe(error)}`;
}

/** `evaluator x: config property …` inside `evaluator x: step "y" failed: …` reads better without the repeat. */
function withoutWhere(text: string, where: string): string {
  return text.startsWith(`${where}: `) ? text.slice(where.length + 2) : text;
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value);
  if (typeof value === 'object')
    return value.constructor?.name && value.constructor !== Object
      ? `an instance of ${value.constructor.name}`
      : 'an object';
  return `${typeof value} ${String(value)}`;
}
