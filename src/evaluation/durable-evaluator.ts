/**
 * `DurableEvaluator<State>`: an evaluation in several steps that survives restarts. It starts in
 * `onEvaluation(context)` and goes on through steps, declared once in `steps()` under explicit
 * ids; each returns an effect (`this.effects()`). The runtime saves the state and the next step's
 * id after every step, so a restarted collector resumes with the step after the last completed one.
 *
 * ```ts
 * class TranscriptJudge extends DurableEvaluator<{ verdicts: number[] }> {
 *   override settings() { return DurableSettings.defaults().withRetry({ maximumAttempts: 3, initialInterval: '1s' }); }
 *   override steps() { return { judge: this.judge }; }
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
 * durable evaluator. A step takes no parameter or one (what `withInput` passed). Steps, their
 * ids and the legacy resume rule: durable-steps.ts.
 */
import { createDurableEffects, type DurableEffect, type DurableEffects } from './durable-effect.ts';
import { runDurableInMemory } from './durable-in-memory.ts';
import { DurableSettings } from './durable-settings.ts';
import { ENTER_STEP, type StepDeclarations, type StepScope } from './durable-steps.ts';
import { effects, type Effect } from './effect.ts';
import type { EvaluationContext } from './evaluation-context.ts';
import { DurableEffectError, EvaluatorFailedError } from './errors.ts';

const DURABLE_EVALUATOR = Symbol.for('evalon.evaluation.durable-evaluator');

export abstract class DurableEvaluator<State = undefined> {
  #scope: StepScope | undefined;
  #stateCopy: { value: State } | undefined;

  /** The entry point: reads what it needs and transitions to the first step (or finishes at once). */
  abstract onEvaluation(context: EvaluationContext): DurableEffect | Promise<DurableEffect>;

  /** Evaluation timeout, default step timeout, retry policy. Default: the runtime defaults (no retry). */
  settings(): DurableSettings {
    return DurableSettings.defaults();
  }

  /**
   * The steps, each under its id: `{ 'judge-criterion': this.judgeCriterion, combine: this.combine }`,
   * or `{ run, retry, timeout }` for a step with its own policy. Read once per evaluation.
   */
  steps(): StepDeclarations {
    return {};
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
        `${this.constructor.name}.${what}(): only available while onEvaluation or a step runs (not in the ` +
          'constructor or after the step returned)',
      );
    }
    return this.#scope;
  }
}

/** Whether `value` is a durable evaluator (made with this or another copy of the module). */
export function isDurableEvaluator(value: unknown): value is DurableEvaluator<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DURABLE_EVALUATOR] === true;
}
