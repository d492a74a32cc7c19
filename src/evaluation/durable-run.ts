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
 * Shared by the collector's runtime (progress saved in the ledger, a run slot held per step) and
 * by `runEvaluator` / `EvaluatorTestKit` (in memory). Internal to Evalon.
 */
import type { DurableProgress } from '../model/records.ts';
import { isEffect } from './effect.ts';
import { isDurableEffect, type Transition } from './durable-effect.ts';
import { jsonCopy } from './durable-json.ts';
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
}

export type DurableRunResult =
  | { stopped: true }
  | { stopped: false; outcome: EvaluationOutcome; evaluation?: Evaluation; error?: unknown; completedSteps: number };

interface Position {
  step: string;
  hasInput: boolean;
  input?: unknown;
  hasState: boolean;
  state?: unknown;
  completedSteps: number;
}

type StepAttempt =
  | {
      ok: true;
      effect:
        | { kind: 'complete'; evaluation: Evaluation }
        | { kind: 'inconclusive'; reason: string }
        | { kind: 'transition'; next: Position };
    }
  | { ok: false; error: unknown; retry: boolean };

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
  const deadline = Date.parse(firstStartedAt) + evaluationTimeoutMs;
  const saved = options.progress;
  let position: Position = saved
    ? {
        step: saved.step,
        hasInput: 'input' in saved,
        input: saved.input,
        hasState: 'state' in saved,
        state: saved.state,
        completedSteps: saved.completedSteps,
      }
    : { step: ON_EVALUATION, hasInput: false, hasState: false, completedSteps: 0 };
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
      if (isTimeout(result.error) && clock() >= deadline) return timedOut(position, 'while it ran');
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
    position = effect.next;
    await options.save(progressOf(position, firstStartedAt));
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
    const aborted = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
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
      return { ok: true, effect: interpret(returned, at, stepWhere) };
    } catch (error) {
      // A transition to a step that does not exist fails at once: running the step again cannot fix it.
      // Nor does a step stopped by the evaluation timeout get another run.
      const permanent = (error instanceof DurableEffectError && error.step !== undefined) || clock() >= deadline;
      return { ok: false, error, retry: !permanent };
    } finally {
      clearTimeout(timer);
      if (onStop) options.signal?.removeEventListener('abort', onStop);
      evaluator[ENTER_STEP](undefined);
    }
  }

  function interpret(returned: unknown, at: Position, stepWhere: string): Extract<StepAttempt, { ok: true }>['effect'] {
    if (isDurableEffect(returned)) {
      if (returned.kind !== 'transition') {
        throw new DurableEffectError(
          `${stepWhere}: returned updateState(…) without a transition (follow it with .transitionTo(step); a state ` +
            'alone does not end a step)',
        );
      }
      const transition = returned as Transition;
      const step = table.forTransition(transition.step, stepWhere).id;
      let state = { hasState: at.hasState, state: at.state };
      if (transition.hasState) {
        const copy = jsonCopy(transition.state, 'state');
        if (!copy.ok)
          throw new DurableEffectError(
            `${stepWhere}: the new state is not JSON: ${copy.problem} (state is saved as JSON after every step)`,
          );
        state = { hasState: copy.value !== undefined, state: copy.value };
      }
      let input: { hasInput: boolean; input?: unknown } = { hasInput: false };
      if (transition.hasInput) {
        const copy = jsonCopy(transition.input, 'input');
        if (!copy.ok)
          throw new DurableEffectError(
            `${stepWhere}: the input of step "${step}" is not JSON: ` +
              `${copy.problem} (it is saved as JSON with the progress)`,
          );
        input = copy.value === undefined ? { hasInput: false } : { hasInput: true, input: copy.value };
      }
      return { kind: 'transition', next: { step, ...input, ...state, completedSteps: at.completedSteps + 1 } };
    }
    if (isEffect(returned))
      return returned.kind === 'complete'
        ? { kind: 'complete', evaluation: returned.evaluation }
        : { kind: 'inconclusive', reason: returned.reason };
    throw new EvaluatorFailedError(
      `${stepWhere} returned ${describe(returned)} (return this.effects().transitionTo(step), .complete(evaluation) ` +
        'or .inconclusive(reason))',
      { cause: returned },
    );
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
