/**
 * The steps of a durable evaluator, declared once in `steps()` under explicit ids:
 *
 * ```ts
 * override steps() {
 *   return {
 *     'judge-criterion': { run: this.judgeCriterion, retry: { maximumAttempts: 2 }, timeout: '2m' },
 *     combine: this.combine,
 *   };
 * }
 * ```
 * The id is what saved progress names, so a method can be renamed while evaluations are in flight.
 * `transitionTo` takes the id or the declared method itself (`this.judgeCriterion`), which
 * resolves to its id. A step's `retry` fields override those of `settings()`, its `timeout` the
 * default step timeout.
 *
 * Progress saved before steps had ids names the step's *method*. Resuming, a saved name that is
 * no declared id is looked up as a method of the evaluator: when that method is declared (under
 * any id), the evaluation resumes there and saves the id from then on; otherwise it fails, naming
 * the saved step.
 */
import type { Duration } from '../config/duration.ts';
import type { DurableEffect, EffectScope } from './durable-effect.ts';
import { timeoutMs, type DurableSettings } from './durable-settings.ts';
import type { EvaluationContext } from './evaluation-context.ts';
import { DurableEffectError, EvaluatorDefinitionError } from './errors.ts';
import { resolveRetryPolicy, type ResolvedRetryPolicy, type RetryPolicy } from './retry-policy.ts';

/** The runtime's hook into an instance: sets what the running step sees (another copy of this module may run it). */
export const ENTER_STEP = Symbol.for('evalon.evaluation.durable-evaluator.enter-step');

/** A step's body: a method of the evaluator taking no parameter, or one (what `withInput` passed). */
// biome-ignore lint/suspicious/noExplicitAny: a step method's parameter is whatever its `withInput` passes.
export type StepMethod = (...args: any[]) => unknown;

/** A step with its own policy: `{ run: this.judge, retry: { maximumAttempts: 3 }, timeout: '30s' }`. */
export interface StepDeclaration {
  run: StepMethod;
  /** Overrides fields of the evaluator's retry policy (`settings().withRetry`) for this step. */
  retry?: RetryPolicy;
  /** This step's timeout, instead of the default step timeout. */
  timeout?: Duration;
}

/** What `steps()` returns: step id → the method, or the method with its policy. */
export type StepDeclarations = Readonly<Record<string, StepMethod | StepDeclaration>>;

/** What one run of one step sees through `evaluationContext()`, `currentState()` and `effects()`. */
export interface StepScope extends EffectScope {
  readonly step: string;
  readonly context: EvaluationContext;
  /** The state as saved (a JSON copy); undefined before the first `updateState`. */
  readonly state: unknown;
  readonly hasState: boolean;
}

/** What the runtime needs of a durable evaluator (`DurableEvaluator` is one). */
export interface DurableInstance {
  onEvaluation(context: EvaluationContext): DurableEffect | Promise<DurableEffect>;
  settings(): DurableSettings;
  steps(): StepDeclarations;
  [ENTER_STEP](scope: StepScope | undefined): void;
}

export interface DeclaredStep {
  readonly id: string;
  readonly run: StepMethod;
  readonly retry: ResolvedRetryPolicy;
  /** Undefined: the default step timeout. */
  readonly timeoutMs: number | undefined;
}

export interface StepTable {
  /** The step a transition names, by id or by its declared method; a `DurableEffectError` otherwise. */
  forTransition(reference: unknown, where: string): DeclaredStep;
  /** The step saved progress names: by id, else (progress saved before steps had ids) by method name. */
  forProgress(saved: string): DeclaredStep | undefined;
}

/** Where an evaluation starts; progress never names it, and no step may take it as its id. */
export const ON_EVALUATION = 'onEvaluation';
const STEP_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const MAX_STEP_ID_LENGTH = 100;
const DECLARATION_FIELDS = new Set(['run', 'retry', 'timeout']);
/** The evaluator API itself: never a step. */
const API_METHODS = [
  'constructor',
  'onEvaluation',
  'settings',
  'steps',
  'emptyState',
  'effects',
  'currentState',
  'evaluationContext',
  'evaluate',
];

/**
 * Reads and checks `steps()` once per evaluation, before `onEvaluation` runs. A bad declaration is
 * an `EvaluatorDefinitionError` naming the step and the field.
 */
export function createStepTable(evaluator: DurableInstance, settings: DurableSettings, where: string): StepTable {
  const className = (evaluator as object).constructor?.name || 'the evaluator';
  const declarations: unknown = evaluator.steps();
  if (typeof declarations !== 'object' || declarations === null || Array.isArray(declarations)) {
    throw new EvaluatorDefinitionError(
      `${where}: steps() must return a mapping of step ids to methods, such as { judge: this.judge } (got ` +
        `${typeof declarations})`,
      { field: 'steps' },
    );
  }
  const api = new Map<unknown, string>();
  for (const name of API_METHODS) api.set((evaluator as unknown as Record<string, unknown>)[name], name);
  const byId = new Map<string, DeclaredStep>();
  const byRun = new Map<StepMethod, DeclaredStep>();
  for (const [id, declared] of Object.entries(declarations)) {
    const stepWhere = `${where}: step "${id}"`;
    if (!STEP_ID.test(id) || id.length > MAX_STEP_ID_LENGTH || id === ON_EVALUATION) {
      throw new EvaluatorDefinitionError(
        `${where}: steps(): ${JSON.stringify(id)} is not a valid step id (letters, digits, "-", "_", "." and ":", at ` +
          `most ${MAX_STEP_ID_LENGTH}, not "${ON_EVALUATION}", as in "judge-criterion")`,
        { field: `steps.${id}` },
      );
    }
    const step = declaredStep(id, declared, stepWhere, settings);
    const apiName = api.get(step.run);
    if (apiName !== undefined) {
      throw new EvaluatorDefinitionError(
        `${stepWhere}: ${apiName} is part of the DurableEvaluator API, not a step (declare a method of ${className})`,
        { field: `steps.${id}` },
      );
    }
    const twin = byRun.get(step.run);
    if (twin) {
      throw new EvaluatorDefinitionError(
        `${stepWhere}: declares the same method as step "${twin.id}" (each step is its own method)`,
        { field: `steps.${id}` },
      );
    }
    byId.set(id, step);
    byRun.set(step.run, step);
  }
  const methodNamed = (name: string): DeclaredStep | undefined => {
    if (API_METHODS.includes(name)) return undefined;
    const value = (evaluator as unknown as Record<string, unknown>)[name];
    return typeof value === 'function' ? byRun.get(value as StepMethod) : undefined;
  };
  const declaredIds = () => [...byId.keys()].map((id) => `"${id}"`).join(', ') || 'none';

  return {
    forTransition(reference, at) {
      if (typeof reference === 'string') {
        const step = byId.get(reference);
        if (step) return step;
        const viaMethod = methodNamed(reference);
        const hint = viaMethod
          ? `its method is declared as step "${viaMethod.id}": transitionTo('${viaMethod.id}')`
          : `declared steps: ${declaredIds()}; declare it in steps()`;
        throw new DurableEffectError(`${at}: step "${reference}" is not a declared step of ${className} (${hint})`, {
          step: reference,
        });
      }
      if (typeof reference === 'function') {
        const step = byRun.get(reference as StepMethod);
        if (step) return step;
        const name = reference.name ? `function ${reference.name.replace(/^bound /, '')}` : 'function';
        throw new DurableEffectError(
          `${at}: the ${name} is not a declared step of ${className} (declare the method in steps(), as in { judge: ` +
            'this.judge }, and pass it or its id; a bound or inline function is not the declared method)',
          { step: reference.name || '(anonymous function)' },
        );
      }
      throw new DurableEffectError(`${at}: a step is a declared method or its id, got ${typeof reference}`, {
        step: String(reference),
      });
    },
    forProgress(saved) {
      return byId.get(saved) ?? methodNamed(saved);
    },
  };
}

function declaredStep(id: string, declared: unknown, where: string, settings: DurableSettings): DeclaredStep {
  if (typeof declared === 'function')
    return Object.freeze({ id, run: declared as StepMethod, retry: settings.retry, timeoutMs: undefined });
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    throw new EvaluatorDefinitionError(
      `${where}: expected a method of the evaluator (this.judge) or { run: this.judge, retry, timeout } (got ` +
        `${declared === null ? 'null' : typeof declared})`,
      { field: `steps.${id}` },
    );
  }
  for (const key of Object.keys(declared)) {
    if (!DECLARATION_FIELDS.has(key)) {
      throw new EvaluatorDefinitionError(
        `${where}: ${key} is not a field of a step declaration (the fields: run, retry, timeout)`,
        { field: `steps.${id}.${key}` },
      );
    }
  }
  const { run, retry, timeout } = declared as Partial<StepDeclaration>;
  if (typeof run !== 'function') {
    throw new EvaluatorDefinitionError(`${where}: run must be a method of the evaluator, as in { run: this.judge }`, {
      field: `steps.${id}.run`,
    });
  }
  return Object.freeze({
    id,
    run,
    retry: retry === undefined ? settings.retry : resolveRetryPolicy(retry, where, settings.retry, `steps.${id}.`),
    timeoutMs: timeout === undefined ? undefined : timeoutMs(timeout, where, `steps.${id}.timeout`),
  });
}
