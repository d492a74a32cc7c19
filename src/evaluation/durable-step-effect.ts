/**
 * What a durable step returned, read: a transition (to a declared step, with its input and the new
 * state checked as JSON), a signal wait, or a final effect. Anything else is a failure of the step
 * that names what it returned. Internal to Evalon.
 */
import { isDurableEffect, type SignalWaitEffect, type Transition } from './durable-effect.ts';
import { jsonCopy } from './durable-json.ts';
import type { StepTable } from './durable-steps.ts';
import { isEffect } from './effect.ts';
import type { Evaluation } from './evaluation.ts';
import { DurableEffectError, EvaluatorFailedError } from './errors.ts';

/** Where a run is: the step to run next, its input, the state, and what it took so far. */
export interface Position {
  step: string;
  hasInput: boolean;
  input?: unknown;
  hasState: boolean;
  state?: unknown;
  completedSteps: number;
  /** Milliseconds parked so far: added to the evaluation's deadline. */
  waitedMs: number;
}

/** What a step's return value means for the run. */
export type StepEffect =
  | { kind: 'complete'; evaluation: Evaluation }
  | { kind: 'inconclusive'; reason: string }
  | { kind: 'transition'; next: Position }
  | { kind: 'await'; next: Position; signal: string; timeoutMs: number };

export type StepAttempt =
  | { ok: true; effect: StepEffect }
  /** `byDeadline`: the evaluation timeout stopped the step. */
  | { ok: false; error: unknown; retry: boolean; byDeadline?: boolean };

export function readStepEffect(returned: unknown, at: Position, stepWhere: string, table: StepTable): StepEffect {
  if (isDurableEffect(returned)) {
    if (returned.kind === 'await-signal') return waitFrom(returned as SignalWaitEffect, at, stepWhere, table);
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
    return {
      kind: 'transition',
      next: { step, ...input, ...state, completedSteps: at.completedSteps + 1, waitedMs: at.waitedMs },
    };
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

function waitFrom(effect: SignalWaitEffect, at: Position, stepWhere: string, table: StepTable): StepEffect {
  const step = table.forTransition(effect.step, stepWhere).id;
  let state = { hasState: at.hasState, state: at.state };
  if (effect.hasState) {
    const copy = jsonCopy(effect.state, 'state');
    if (!copy.ok)
      throw new DurableEffectError(
        `${stepWhere}: the new state is not JSON: ${copy.problem} (state is saved as JSON while it waits)`,
      );
    state = { hasState: copy.value !== undefined, state: copy.value };
  }
  return {
    kind: 'await',
    signal: effect.signal,
    timeoutMs: effect.timeoutMs,
    next: { step, hasInput: false, ...state, completedSteps: at.completedSteps + 1, waitedMs: at.waitedMs },
  };
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
