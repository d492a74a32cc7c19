/**
 * `DurableSettings`: what a durable evaluator's `settings()` returns (the seed's `Settings`).
 * Immutable: each `with*` returns a new value. Durations are milliseconds or text such as `'30s'`
 * or `'5m'`. A setting left unset takes the runtime default:
 *
 * - evaluation timeout: the definition's `timeoutMs` (default 2 minutes);
 * - default step timeout: the same;
 * - max step retries: 0 (a failed step is not retried).
 */
import { EvaluatorDefinitionError } from './errors.ts';

/** Retries of one step when `settings()` does not set them: none. */
export const DEFAULT_MAX_STEP_RETRIES = 0;
const MAX_DURATION_MS = 24 * 3_600_000;
const MAX_STEP_RETRIES = 100;
const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h'}`;

export interface DurableSettingsData {
  /** The whole evaluation, counted from its first attempt's start, across restarts. */
  evaluationTimeoutMs?: number;
  /** One run of one step. */
  defaultStepTimeoutMs?: number;
  /** How often a failed step runs again before the evaluation fails. */
  maxStepRetries?: number;
}

export class DurableSettings {
  readonly evaluationTimeoutMs: number | undefined;
  readonly defaultStepTimeoutMs: number | undefined;
  readonly maxStepRetries: number | undefined;

  private constructor(data: DurableSettingsData) {
    this.evaluationTimeoutMs = data.evaluationTimeoutMs;
    this.defaultStepTimeoutMs = data.defaultStepTimeoutMs;
    this.maxStepRetries = data.maxStepRetries;
    Object.freeze(this);
  }

  /** Every setting at the runtime default. */
  static defaults(): DurableSettings {
    return new DurableSettings({});
  }

  withEvaluationTimeout(timeout: Duration): DurableSettings {
    return new DurableSettings({ ...this.#data(), evaluationTimeoutMs: durationMs(timeout, 'withEvaluationTimeout') });
  }

  withDefaultStepTimeout(timeout: Duration): DurableSettings {
    return new DurableSettings({
      ...this.#data(),
      defaultStepTimeoutMs: durationMs(timeout, 'withDefaultStepTimeout'),
    });
  }

  withMaxStepRetries(retries: number): DurableSettings {
    if (!Number.isInteger(retries) || retries < 0 || retries > MAX_STEP_RETRIES) {
      throw new EvaluatorDefinitionError(
        `DurableSettings.withMaxStepRetries: retries must be an integer from 0 to ${MAX_STEP_RETRIES} (got ${String(retries)})`,
      );
    }
    return new DurableSettings({ ...this.#data(), maxStepRetries: retries });
  }

  #data(): DurableSettingsData {
    return {
      evaluationTimeoutMs: this.evaluationTimeoutMs,
      defaultStepTimeoutMs: this.defaultStepTimeoutMs,
      maxStepRetries: this.maxStepRetries,
    };
  }
}

/** `30_000`, `'30s'`, `'5m'` → milliseconds; anything else is a definition error naming the setter. */
export function durationMs(value: Duration, where: string): number {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value;
  else if (typeof value === 'string') {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value.trim());
    if (match) ms = Number(match[1]) * UNITS[match[2]];
  }
  if (ms === undefined || !Number.isFinite(ms) || !Number.isInteger(Math.round(ms)) || ms < 1 || ms > MAX_DURATION_MS) {
    throw new EvaluatorDefinitionError(
      `DurableSettings.${where}: expected a duration from 1 ms to 24 h, in milliseconds or as text such as "30s" or "5m" (got ${JSON.stringify(value)})`,
    );
  }
  return Math.round(ms);
}
