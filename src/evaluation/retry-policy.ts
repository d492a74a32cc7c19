/**
 * How a failed durable step runs again: a retry policy is plain data, checked when it is given
 * (`DurableSettings.withRetry`, a step declared in `steps()`), so a typo fails with the field's name
 * before any step runs rather than as a surprise at the first failure.
 *
 * ```ts
 * { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s',
 *   nonRetryableErrorTypes: ['ConfigPropertyTypeError'] }
 * ```
 * Attempt n (n ≥ 2) starts `min(initialInterval · backoffCoefficient^(n-2), maximumInterval)` after
 * attempt n-1 failed. Durations are milliseconds or text in Evalon's duration grammar (`'500ms'`, `'30s'`).
 */
import { DURATION_FORM, durationMs, type Duration } from '../config/duration.ts';
import { EvaluatorDefinitionError } from './errors.ts';

export interface RetryPolicy {
  /** Runs of a step in all, the first included (1: no retry). Default 1. */
  maximumAttempts?: number;
  /** The wait before the first retry. Default 1 s. */
  initialInterval?: Duration;
  /** Each further wait is the previous one times this (≥ 1). Default 2. */
  backoffCoefficient?: number;
  /** No wait is longer than this (≥ initialInterval). Default 100 × initialInterval (so 100 s). */
  maximumInterval?: Duration;
  /** Error names (`error.name`) that fail the step at once, without a retry. Default none. */
  nonRetryableErrorTypes?: readonly string[];
}

/** A checked policy, every field set, durations in milliseconds. */
export interface ResolvedRetryPolicy {
  readonly maximumAttempts: number;
  readonly initialIntervalMs: number;
  readonly backoffCoefficient: number;
  readonly maximumIntervalMs: number;
  readonly nonRetryableErrorTypes: readonly string[];
}

export const MAX_ATTEMPTS = 100;
const MAX_INTERVAL_MS = 24 * 3_600_000;
const MAX_COEFFICIENT = 100;
const FIELDS = new Set([
  'maximumAttempts',
  'initialInterval',
  'backoffCoefficient',
  'maximumInterval',
  'nonRetryableErrorTypes',
]);

/** No retry: what a durable evaluator gets when neither `settings()` nor the step sets a policy. */
export const DEFAULT_RETRY_POLICY: ResolvedRetryPolicy = Object.freeze({
  maximumAttempts: 1,
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 100_000,
  nonRetryableErrorTypes: Object.freeze([]) as readonly string[],
});

/**
 * `policy` checked and laid over `base` field by field (a field it leaves out keeps the base's).
 * Throws an `EvaluatorDefinitionError` naming the first bad field: the message after `where`
 * (`retry.maximumAttempts must be…`), `field` with `fieldPrefix` before it (`steps.judge.`).
 */
export function resolveRetryPolicy(
  policy: RetryPolicy,
  where: string,
  base: ResolvedRetryPolicy = DEFAULT_RETRY_POLICY,
  fieldPrefix = '',
): ResolvedRetryPolicy {
  const fail = (field: string, expected: string, got: unknown): never => {
    throw new EvaluatorDefinitionError(`${where}: retry.${field} must be ${expected} (got ${describe(got)})`, {
      field: `${fieldPrefix}retry.${field}`,
    });
  };
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new EvaluatorDefinitionError(
      `${where}: retry must be a policy such as { maximumAttempts: 3, initialInterval: '1s' } (got ` +
        `${describe(policy)})`,
      { field: `${fieldPrefix}retry` },
    );
  }
  for (const key of Object.keys(policy)) {
    if (!FIELDS.has(key))
      throw new EvaluatorDefinitionError(
        `${where}: retry.${key} is not a field of a retry policy (the fields: ${[...FIELDS].join(', ')})`,
        { field: `${fieldPrefix}retry.${key}` },
      );
  }
  const attempts = policy.maximumAttempts ?? base.maximumAttempts;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > MAX_ATTEMPTS)
    fail('maximumAttempts', `an integer from 1 to ${MAX_ATTEMPTS}`, attempts);
  const interval = (field: 'initialInterval' | 'maximumInterval', fallback: number): number => {
    const value = policy[field];
    if (value === undefined) return fallback;
    const ms = durationMs(value);
    if (ms === undefined || ms > MAX_INTERVAL_MS) fail(field, `${DURATION_FORM}, at most 24h`, value);
    return Math.round(ms!);
  };
  const initialIntervalMs = interval('initialInterval', base.initialIntervalMs);
  const coefficient = policy.backoffCoefficient ?? base.backoffCoefficient;
  if (
    typeof coefficient !== 'number' ||
    !Number.isFinite(coefficient) ||
    coefficient < 1 ||
    coefficient > MAX_COEFFICIENT
  )
    fail('backoffCoefficient', `a number from 1 to ${MAX_COEFFICIENT}`, coefficient);
  // A policy that sets initialInterval but no cap gets 100 × its interval, whatever the base's cap was.
  const defaultMaximum = policy.initialInterval !== undefined ? initialIntervalMs * 100 : base.maximumIntervalMs;
  const maximumIntervalMs = interval('maximumInterval', Math.min(defaultMaximum, MAX_INTERVAL_MS));
  if (maximumIntervalMs < initialIntervalMs)
    fail('maximumInterval', `at least initialInterval (${initialIntervalMs} ms)`, policy.maximumInterval);
  const types = policy.nonRetryableErrorTypes ?? base.nonRetryableErrorTypes;
  if (!Array.isArray(types) || types.some((type) => typeof type !== 'string' || type.trim() === ''))
    fail('nonRetryableErrorTypes', 'a list of error names such as ["TypeError"]', types);
  return Object.freeze({
    maximumAttempts: attempts,
    initialIntervalMs,
    backoffCoefficient: coefficient,
    maximumIntervalMs,
    nonRetryableErrorTypes: Object.freeze([...types]),
  });
}

/** The wait before attempt `attempt + 1`, after attempt `attempt` (1 for the first) failed. */
export function retryDelayMs(policy: ResolvedRetryPolicy, attempt: number): number {
  const delay = policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1);
  return Math.round(Math.min(delay, policy.maximumIntervalMs));
}

/** Whether the policy lets a step that failed with `error` run again (its name is not listed). */
export function allowsRetry(policy: ResolvedRetryPolicy, error: unknown): boolean {
  const name = error instanceof Error ? error.name : undefined;
  return name === undefined || !policy.nonRetryableErrorTypes.includes(name);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (value === null || value === undefined) return String(value);
  return typeof value === 'object' ? 'an object' : String(value);
}
