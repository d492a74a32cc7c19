/**
 * The schemas of the reserved keys that run an evaluator entry in production: `version`,
 * `shadow` (entry only) and `budget` (entry or binding). `config.ts` places them.
 */
import * as z from 'zod';
import { describeValue } from '../../../src/config/describe-value.ts';
import { section } from '../../config/schema-kit.ts';
import { count, duration } from '../../config/values.ts';

/** `budget`: at most `tokens` input + output tokens of model calls in any window of `perMs`. */
export interface BudgetConfig {
  tokens: number;
  /** The sliding window, in milliseconds (`per`). */
  perMs: number;
}

export const DEFAULT_SHADOW = false;

/** `budget: { tokens: 200000, per: 1h }`: both keys required. */
export const budgetSchema = section({
  tokens: required('the tokens allowed in each window of per').pipe(count(1)),
  per: required('the sliding window the tokens are counted over, such as 1h').pipe(duration({ positive: true })),
}).transform((budget): BudgetConfig => ({ tokens: budget.tokens, perMs: budget.per }));

/** A key that must be written; `what` says what it holds. */
function required(what: string) {
  return z.unknown().superRefine((value, context) => {
    if (value === undefined) context.addIssue({ code: 'custom', message: `is required (${what})` });
  });
}

/**
 * `version`: what the entry's outcomes are recorded under. Text, or a number as written
 * (`version: 2` is `"2"`).
 */
export function versionSchema() {
  return z.unknown().transform((value, context): string => {
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value !== 'string' || value.trim() === '') {
      context.addIssue({
        code: 'custom',
        message: `must be a non-empty string such as "2" (got ${describeValue(value)})`,
      });
      return z.NEVER;
    }
    return value.trim();
  });
}
