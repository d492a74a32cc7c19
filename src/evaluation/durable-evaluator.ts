/**
 * `DurableEvaluator<State>`: an evaluation in several steps that survives restarts (the seed's
 * `DurableEvaluator`). It starts in `onEvaluation(context)` and goes on through step methods; each
 * returns an effect (`this.effects()`). The runtime saves the state and the next step after every
 * step, so a restarted collector resumes with the step after the last completed one.
 *
 * ```ts
 * class TranscriptJudge extends DurableEvaluator<{ verdicts: number[] }> {
 *   onEvaluation() { return this.effects().transitionTo(this.judge); }
 *   async judge() {
 *     const { subject } = this.evaluationContext();
 *     …
 *     return this.effects().complete(Evaluation.passed('relevant'));
 *   }
 * }
 * export const transcriptJudge = defineEvaluator({ id: 'transcript-judge', create: () => new TranscriptJudge() });
 * ```
 * `defineEvaluator` registers it like any evaluator: the runtime sees that `create` returned a
 * durable evaluator. A step takes no parameter or one (what `withInput` passed).
 */
import { createDurableEffects, type DurableEffect, type DurableEffects, type EffectScope } from './durable-effect.ts';
import { runDurableInMemory } from './durable-in-memory.ts';
import { DurableSettings } from './durable-settings.ts';
import { effects, type Effect } from './effect.ts';
import type { EvaluationContext } from './evaluation-context.ts';
import { DurableEffectError, EvaluatorFailedError } from './errors.ts';

const DURABLE_EVALUATOR = Symbol.for('evalon.evaluation.durable-evaluator');
/** The runtime's hook into an instance: sets what the running step sees (another copy of this module may run it). */
export const ENTER_STEP = Symbol.for('evalon.evaluation.durable-evaluator.enter-step');

/** What one run of one step sees through `evaluationContext()`, `currentState()` and `effects()`. */
export interface StepScope extends EffectScope {
  readonly step: string;
  readonly context: EvaluationContext;
  /** The state as saved (a JSON copy); undefined before the first `updateState`. */
  readonly state: unknown;
  readonly hasState: boolean;
}

/** Names a step cannot have: the evaluator API itself. */
export const RESERVED_STEP_NAMES: ReadonlySet<string> = new Set([
  'constructor',
  'onEvaluation',
  'settings',
  'emptyState',
  'effects',
  'currentState',
  'evaluationContext',
  'evaluate',
]);

export abstract class DurableEvaluator<State = undefined> {
  #scope: StepScope | undefined;
  #stateCopy: { value: State } | undefined;

  /** The entry point: reads what it needs and transitions to the first step (or finishes at once). */
  abstract onEvaluation(context: EvaluationContext): DurableEffect | Promise<DurableEffect>;

  /** Evaluation timeout, default step timeout, step retries. Default: the runtime defaults (no retry). */
  settings(): DurableSettings {
    return DurableSettings.defaults();
  }

  /** The state before any `updateState` (default `undefined`). */
  emptyState(): State {
    return undefined as State;
  }

  /** The effects of the running step. */
  protected effects(): DurableEffects<State> {
    return createDurableEffects<State>(this.#current('effects'));
  }

  /**
   * The state the last completed step saved (or `emptyState()`), as a JSON copy: changing it
   * changes nothing until `updateState` passes it on.
   */
  protected currentState(): State {
    const scope = this.#current('currentState');
    if (!scope.hasState) return this.emptyState();
    this.#stateCopy ??= { value: structuredClone(scope.state) as State };
    return this.#stateCopy.value;
  }

  /** The subject, evaluation id, `config()` (read afresh for every step), ledger and this step's signal. */
  protected evaluationContext(): EvaluationContext {
    return this.#current('evaluationContext').context;
  }

  /**
   * Runs the whole evaluation here, every step in this process, nothing saved: what
   * `EvaluatorTestKit` does. The collector does not call it; it runs the steps itself and saves
   * the progress after each. A failed evaluation throws an `EvaluatorFailedError`.
   */
  async evaluate(context: EvaluationContext): Promise<Effect> {
    const { outcome, evaluation } = await runDurableInMemory({
      evaluator: this,
      evaluatorId: context.evaluatorId,
      context,
    });
    if (outcome.type === 'verdict') return effects.complete(evaluation!);
    if (outcome.type === 'inconclusive') return effects.inconclusive(outcome.reason);
    const error = new EvaluatorFailedError(
      outcome.error,
      outcome.attributes ? { attributes: outcome.attributes } : undefined,
    );
    if (outcome.errorType) error.name = outcome.errorType;
    throw error;
  }

  [ENTER_STEP](scope: StepScope | undefined): void {
    this.#scope = scope;
    this.#stateCopy = undefined;
  }

  get [DURABLE_EVALUATOR](): true {
    return true;
  }

  #current(what: string): StepScope {
    if (!this.#scope) {
      throw new DurableEffectError(
        `${this.constructor.name}.${what}(): only available while onEvaluation or a step runs (not in the constructor or after the step returned)`,
      );
    }
    return this.#scope;
  }
}

/** Whether `value` is a durable evaluator (made with this or another copy of the module). */
export function isDurableEvaluator(value: unknown): value is DurableEvaluator<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DURABLE_EVALUATOR] === true;
}

/**
 * The step's name for a step reference: a method found on the instance or its prototype chain
 * (the function itself or its name). Throws a `DurableEffectError` naming the evaluator and step.
 */
export function resolveStep(evaluator: DurableEvaluator<unknown>, step: unknown, where: string): string {
  const className = evaluator.constructor?.name || 'the evaluator';
  if (typeof step === 'string') {
    if (RESERVED_STEP_NAMES.has(step))
      throw new DurableEffectError(
        `${where}: "${step}" is part of the DurableEvaluator API, not a step of ${className}`,
        { step },
      );
    if (typeof (evaluator as unknown as Record<string, unknown>)[step] !== 'function') {
      throw new DurableEffectError(
        `${where}: step "${step}" is not a method of ${className} (a step is a method of the evaluator)`,
        { step },
      );
    }
    return step;
  }
  if (typeof step === 'function') {
    for (
      let object: object | null = evaluator;
      object && object !== Object.prototype;
      object = Object.getPrototypeOf(object)
    ) {
      for (const key of Object.getOwnPropertyNames(object)) {
        const descriptor = Object.getOwnPropertyDescriptor(object, key);
        if (descriptor && 'value' in descriptor && descriptor.value === step && !RESERVED_STEP_NAMES.has(key))
          return key;
      }
    }
    throw new DurableEffectError(
      `${where}: the step ${step.name ? `function ${step.name}` : 'function'} is not a method of ${className} (pass a method such as this.judge, not a bound or inline function)`,
      { step: step.name || '(anonymous function)' },
    );
  }
  throw new DurableEffectError(`${where}: a step is a method or its name, got ${typeof step}`, { step: String(step) });
}
