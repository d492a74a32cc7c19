/**
 * `DurableSettings`: what a durable evaluator's `settings()` returns. Immutable: each `with*`
 * checks its value at once (an `EvaluatorDefinitionError` naming the setter and field) and returns
 * a new value. Durations are milliseconds or text in Evalon's duration grammar (`'30s'`, `'5m'`).
 * A setting left unset takes the runtime default:
 *
 * - evaluation timeout: the definition's `timeoutMs` (default 2 minutes);
 * - default step timeout: the same;
 * - retry: one attempt (a failed step is not retried).
 *
 * Built once at module level (`const SETTINGS = DurableSettings.defaults()…`), a bad value fails
 * when the evaluator's module is loaded, before any evaluation runs.
 */
import { DURATION_FORM, durationMs, type Duration } from '../config/duration.ts';
import { EvaluatorDefinitionError } from './errors.ts';
import {
  DEFAULT_RETRY_POLICY,
  resolveRetryPolicy,
  type ResolvedRetryPolicy,
  type RetryPolicy,
} from './retry-policy.ts';

const MAX_TIMEOUT_MS = 24 * 3_600_000;

export interface DurableSettingsData {
  /** The whole evaluation, counted from its first attempt's start, across restarts. */
  evaluationTimeoutMs?: number;
  /** One run of one step (a step may set its own). */
  defaultStepTimeoutMs?: number;
  /** How a failed step runs again (a step may override fields of it). */
  retry?: ResolvedRetryPolicy;
}

export class DurableSettings {
  readonly evaluationTimeoutMs: number | undefined;
  readonly defaultStepTimeoutMs: number | undefined;
  /** The policy every step starts from: `withRetry`'s, else no retry. */
  readonly retry: ResolvedRetryPolicy;

  private constructor(data: DurableSettingsData) {
    this.evaluationTimeoutMs = data.evaluationTimeoutMs;
    this.defaultStepTimeoutMs = data.defaultStepTimeoutMs;
    this.retry = data.retry ?? DEFAULT_RETRY_POLICY;
    Object.freeze(this);
  }

  /** Every setting at the runtime default. */
  static defaults(): DurableSettings {
    return new DurableSettings({});
  }

  withEvaluationTimeout(timeout: Duration): DurableSettings {
    return new DurableSettings({
      ...this.#data(),
      evaluationTimeoutMs: timeoutMs(timeout, 'DurableSettings.withEvaluationTimeout'),
    });
  }

  withDefaultStepTimeout(timeout: Duration): DurableSettings {
    return new DurableSettings({
      ...this.#data(),
      defaultStepTimeoutMs: timeoutMs(timeout, 'DurableSettings.withDefaultStepTimeout'),
    });
  }

  /** The retry policy of every step, laid over the defaults field by field. */
  withRetry(policy: RetryPolicy): DurableSettings {
    return new DurableSettings({ ...this.#data(), retry: resolveRetryPolicy(policy, 'DurableSettings.withRetry') });
  }

  #data(): DurableSettingsData {
    return {
      evaluationTimeoutMs: this.evaluationTimeoutMs,
      defaultStepTimeoutMs: this.defaultStepTimeoutMs,
      retry: this.retry,
    };
  }
}

/**
 * `30_000`, `'30s'`, `'5m'` → milliseconds, from 1 ms to 24 h; anything else is a definition error
 * after `where`, naming `field` (its last part in the message) when given.
 */
export function timeoutMs(value: Duration, where: string, field?: string): number {
  const ms = durationMs(value);
  if (ms === undefined || ms < 1 || ms > MAX_TIMEOUT_MS) {
    const name = field?.split('.').at(-1);
    throw new EvaluatorDefinitionError(
      `${where}: ${name ? `${name} must be` : 'expected'} ${DURATION_FORM}, from 1ms to 24h (got ` +
        `${JSON.stringify(value)})`,
      field ? { field } : undefined,
    );
  }
  return Math.round(ms);
}
