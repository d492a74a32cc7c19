/**
 * The effects of a durable evaluator's `onEvaluation` and steps (`this.effects()`):
 *
 * - `transitionTo(step)`, optionally `.withInput(value)`, optionally preceded by
 *   `updateState(state)`: continue with `step`;
 * - `complete(evaluation)`: record the verdict and remove the instance;
 * - `inconclusive(reason)`: record that no verdict was reached and remove the instance;
 * - `awaitSignal(signal, { timeout, resumeWith })`, optionally preceded by `updateState(state)`:
 *   park the evaluation until the signal arrives or the timeout passes (signal-wait.ts), then
 *   continue with the `resumeWith` step, which receives the `SignalArrival`.
 *
 * `updateState` alone is not a final effect, and a step that completed cannot transition further:
 * both are `DurableEffectError`s. A step is one declared in the evaluator's `steps()`, given by
 * its id (`'judge-criterion'`) or as the declared method (`this.judgeCriterion`).
 */
import { effects as plainEffects, type Effect } from './effect.ts';
import type { Evaluation } from './evaluation.ts';
import { DurableEffectError } from './errors.ts';
import { checkSignalWait, type AwaitSignalOptions } from './signal-wait.ts';

const DURABLE_EFFECT = Symbol.for('evalon.evaluation.durable-effect');

/** A declared step: its id, or the method `steps()` declares under that id. */
// biome-ignore lint/suspicious/noExplicitAny: a step method's parameter is whatever its `withInput` passes.
export type StepReference = string | ((...args: any[]) => unknown);

export interface Transition {
  readonly kind: 'transition';
  readonly step: StepReference;
  readonly hasInput: boolean;
  readonly input?: unknown;
  readonly hasState: boolean;
  readonly state?: unknown;
  /** The value the step receives as its parameter (JSON). */
  withInput(input: unknown): Transition;
}

/** Park until `signal` arrives or `timeoutMs` passes, then continue with `step` (signal-wait.ts). */
export interface SignalWaitEffect {
  readonly kind: 'await-signal';
  readonly signal: string;
  readonly timeoutMs: number;
  readonly step: StepReference;
  readonly hasState: boolean;
  readonly state?: unknown;
}

export interface StateUpdate<State = unknown> {
  readonly kind: 'update-state';
  readonly state: State;
  /** Continue with `step`, which reads the new state with `currentState()`. */
  transitionTo(step: StepReference): Transition;
  /** Park with the new state until the signal arrives or the timeout passes. */
  awaitSignal(signal: string, options: AwaitSignalOptions<StepReference>): SignalWaitEffect;
}

/** What `onEvaluation` and each step return. */
export type DurableEffect = Transition | SignalWaitEffect | Effect;

export interface DurableEffects<State> {
  transitionTo(step: StepReference): Transition;
  /** Replaces the state (JSON); must be followed by `transitionTo`. */
  updateState(state: State): StateUpdate<State>;
  complete(evaluation: Evaluation): Effect;
  inconclusive(reason: string): Effect;
  /**
   * Parks the evaluation, holding no run slot, until `signal` is delivered or `timeout` passes;
   * then `resumeWith` runs with the `SignalArrival` as its parameter.
   */
  awaitSignal(signal: string, options: AwaitSignalOptions<StepReference>): SignalWaitEffect;
}

/** How far the current step has gone: a step that finished the evaluation cannot transition. */
export interface EffectScope {
  /** `evaluator X: step "y"`, the start of every message. */
  readonly where: string;
  finished?: 'complete' | 'inconclusive';
}

export function createDurableEffects<State>(scope: EffectScope): DurableEffects<State> {
  const refuseAfterFinish = (what: string) => {
    if (scope.finished) {
      throw new DurableEffectError(
        `${scope.where}: ${what} after the evaluation was ` +
          `${scope.finished === 'complete' ? 'completed' : 'made inconclusive'} ` +
          '(a finished evaluation cannot transition further)',
      );
    }
  };
  const transition = (
    step: StepReference,
    state: { hasState: boolean; state?: unknown },
    input: { hasInput: boolean; input?: unknown },
  ): Transition => {
    checkReference(step, scope.where);
    return Object.freeze({
      kind: 'transition' as const,
      step,
      ...state,
      ...input,
      withInput(value: unknown) {
        return transition(step, state, { hasInput: true, input: value });
      },
      [DURABLE_EFFECT]: true,
    });
  };
  const wait = (
    signal: string,
    options: AwaitSignalOptions<StepReference>,
    state: { hasState: boolean; state?: unknown },
  ): SignalWaitEffect => {
    refuseAfterFinish('awaitSignal');
    if (typeof options !== 'object' || options === null) {
      throw new DurableEffectError(
        `${scope.where}: awaitSignal("${String(signal)}") needs its options: { timeout: '7d', resumeWith: this.step }`,
      );
    }
    const { timeoutMs } = checkSignalWait(signal, options.timeout, scope.where);
    checkReference(options.resumeWith, scope.where);
    return Object.freeze({
      kind: 'await-signal' as const,
      signal,
      timeoutMs,
      step: options.resumeWith,
      ...state,
      [DURABLE_EFFECT]: true,
    });
  };
  const finish = (effect: Effect): Effect => {
    scope.finished ??= effect.kind;
    // A JavaScript caller chaining .transitionTo on a finished effect gets the reason, not "not a function".
    Object.defineProperty(effect, 'transitionTo', {
      value: () => refuseAfterFinish('transitionTo'),
      enumerable: false,
    });
    return Object.freeze(effect);
  };
  return {
    transitionTo(step) {
      refuseAfterFinish('transitionTo');
      return transition(step, { hasState: false }, { hasInput: false });
    },
    updateState(state) {
      refuseAfterFinish('updateState');
      return Object.freeze({
        kind: 'update-state' as const,
        state,
        transitionTo(step: StepReference) {
          refuseAfterFinish('transitionTo');
          return transition(step, { hasState: true, state }, { hasInput: false });
        },
        awaitSignal(signal: string, options: AwaitSignalOptions<StepReference>) {
          return wait(signal, options, { hasState: true, state });
        },
        [DURABLE_EFFECT]: true,
      });
    },
    awaitSignal: (signal, options) => wait(signal, options, { hasState: false }),
    complete: (evaluation) => finish({ ...plainEffects.complete(evaluation) } as Effect),
    inconclusive: (reason) => finish({ ...plainEffects.inconclusive(reason) } as Effect),
  };
}

/** A transition, a signal wait or a state update made by `createDurableEffects` (maybe another copy of this module). */
export function isDurableEffect(value: unknown): value is Transition | SignalWaitEffect | StateUpdate {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DURABLE_EFFECT] === true;
}

function checkReference(step: unknown, where: string): void {
  if (typeof step === 'function' || (typeof step === 'string' && step !== '')) return;
  throw new DurableEffectError(
    `${where}: transitionTo and resumeWith expect a declared step, its method (this.judge) or its id ('judge'), got ` +
      `${step === '' ? 'an empty string' : typeof step}`,
  );
}
