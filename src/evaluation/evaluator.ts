/**
 * `Evaluator` and its registration. An evaluator assesses one interaction per `evaluate` call and
 * returns an effect; the runtime creates a new instance for every evaluation (through the
 * definition's `create`), so an evaluator holds no state between interactions.
 *
 * ```ts
 * export const replyLength = defineEvaluator({
 *   id: 'reply-length-evaluator',
 *   create: ({ ledger }) => new ReplyLengthEvaluator(ledger),
 * });
 * ```
 * A module listed in `processors.evaluation.modules` exports its definitions (named exports, or
 * arrays of them); the id is how configuration refers to the evaluator.
 *
 * `properties`, a zod schema of the mapping `context.config()` reads (keys as written in YAML,
 * `min-length`), lets the collector check every binding's properties at startup and in
 * `evalon validate`, each problem reported once with its YAML path, instead of failing every
 * evaluation at run time. Without it, properties are checked only by the getters, when they run.
 *
 * `create` may also return a `DurableEvaluator` (durable-evaluator.ts): the runtime sees it and
 * runs the evaluation step by step, saving its progress after every step.
 */
import type * as z from 'zod';
import type { EvaluatorType } from '../model/records.ts';
import type { Effect } from './effect.ts';
import type { EvaluationContext, SubjectKind } from './evaluation-context.ts';
import { EvaluatorDefinitionError } from './errors.ts';
import type { LedgerClient } from './ledger-client.ts';

export interface Evaluator {
  /** May be async. A throw or a rejection records a failed evaluation. */
  evaluate(context: EvaluationContext): Effect | Promise<Effect>;
}

/** What `create` is given: the dependencies an evaluator may use. */
export interface EvaluatorDependencies {
  ledger: LedgerClient;
}

export interface EvaluatorDefinitionOptions {
  /** The evaluator's id, how configuration refers to it: lowercase letters, digits, `-`, `_`, `.`. */
  id: string;
  /**
   * Recorded on every evaluation. Change it when the evaluator judges differently: outcomes are
   * exactly once per (interaction, evaluator, version), so `evalon backfill` evaluates stored
   * interactions again under a new version. Default `'1'`.
   */
  version?: string;
  /** Makes a new evaluator for one evaluation (an `Evaluator`, or a `DurableEvaluator`, which is one too). */
  create(dependencies: EvaluatorDependencies): Evaluator;
  /**
   * Longest one evaluation may take before it is recorded as failed (default 2 minutes). For a
   * durable evaluator, the evaluation and step timeouts its `settings()` does not set.
   */
  timeoutMs?: number;
  /** What it checks, for `evalon explain` and docs. */
  description?: string;
  /**
   * What it can judge: `interaction` (one interaction per evaluation), `conversation` (a whole
   * conversation: `context.subject.kind === 'conversation'`), or both. Default `['interaction']`.
   * A binding with `trigger: conversation` needs an evaluator that lists `conversation`.
   */
  subjects?: readonly SubjectKind[];
  /**
   * What kind of evaluator it is, recorded as provenance (`gen_ai.evaluation.evaluator.type`) on
   * every verdict: `llm_judge`, `deterministic`, `human` or `custom` (the default).
   */
  type?: EvaluatorType;
  /**
   * The properties it takes, as a zod schema of the effective properties of one binding (the
   * binding's over the entry's, key by key, reserved keys left out), checked synchronously before
   * anything runs. A check only: `config()` still returns the values as written.
   */
  properties?: z.ZodType;
}

const DEFINITION = Symbol.for('evalon.evaluation.evaluator-definition');

export interface EvaluatorDefinition {
  readonly id: string;
  readonly version: string;
  readonly timeoutMs: number;
  readonly description?: string;
  /** What it can judge (`defineEvaluator`'s `subjects`, default `['interaction']`). */
  readonly subjects: readonly SubjectKind[];
  readonly type: EvaluatorType;
  /** See `EvaluatorDefinitionOptions.properties`. */
  readonly properties?: z.ZodType;
  create(dependencies: EvaluatorDependencies): Evaluator;
  readonly [DEFINITION]: true;
}

export const DEFAULT_EVALUATOR_VERSION = '1';
export const DEFAULT_SUBJECTS: readonly SubjectKind[] = Object.freeze(['interaction'] as const);
const SUBJECT_KINDS: readonly SubjectKind[] = ['interaction', 'conversation'];
export const DEFAULT_EVALUATOR_TYPE: EvaluatorType = 'custom';
const EVALUATOR_TYPES: readonly EvaluatorType[] = ['llm_judge', 'deterministic', 'human', 'custom'];
export const DEFAULT_EVALUATION_TIMEOUT_MS = 120_000;
const ID_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
const MAX_TIMEOUT_MS = 24 * 3_600_000;

export function defineEvaluator(options: EvaluatorDefinitionOptions): EvaluatorDefinition {
  const id = options?.id;
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    throw new EvaluatorDefinitionError(
      `defineEvaluator: id ${JSON.stringify(id)} is not a valid evaluator id (lowercase letters, digits, "-", "_" ` +
        'and ".", as in "reply-length")',
    );
  }
  const where = `defineEvaluator(${id})`;
  const version = options.version ?? DEFAULT_EVALUATOR_VERSION;
  if (typeof version !== 'string' || version.trim() === '')
    throw new EvaluatorDefinitionError(`${where}: version must be a non-empty string`);
  if (typeof options.create !== 'function') {
    throw new EvaluatorDefinitionError(
      `${where}: create must be a function returning an evaluator (create: ({ ledger }) => new MyEvaluator(ledger))`,
    );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_EVALUATION_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new EvaluatorDefinitionError(
      `${where}: timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS} (got ${String(timeoutMs)})`,
    );
  }
  const subjects = options.subjects ?? DEFAULT_SUBJECTS;
  if (
    !Array.isArray(subjects) ||
    subjects.length === 0 ||
    subjects.some((kind) => !SUBJECT_KINDS.includes(kind as SubjectKind))
  ) {
    throw new EvaluatorDefinitionError(
      `${where}: subjects must list what the evaluator can judge: 'interaction', 'conversation' or both ` +
        `(got ${JSON.stringify(subjects)})`,
      { field: 'subjects' },
    );
  }
  const type = options.type ?? DEFAULT_EVALUATOR_TYPE;
  if (!EVALUATOR_TYPES.includes(type))
    throw new EvaluatorDefinitionError(
      `${where}: type must be one of ${EVALUATOR_TYPES.join(', ')} (got ${JSON.stringify(type)})`,
    );
  const properties = options.properties;
  if (properties !== undefined && typeof (properties as { safeParse?: unknown })?.safeParse !== 'function') {
    throw new EvaluatorDefinitionError(
      `${where}: properties must be a zod schema (properties: z.object({ 'min-length': z.number() }))`,
      { field: 'properties' },
    );
  }
  const create = options.create;
  return Object.freeze({
    id,
    version,
    timeoutMs,
    subjects: Object.freeze([...new Set(subjects)]),
    type,
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(properties !== undefined ? { properties } : {}),
    create: (dependencies: EvaluatorDependencies) => create(dependencies),
    [DEFINITION]: true as const,
  });
}

export function isEvaluatorDefinition(value: unknown): value is EvaluatorDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINITION] === true;
}
