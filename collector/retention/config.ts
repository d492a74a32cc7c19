/**
 * `processors.evaluation.ledger.retention`: how long the ledger keeps what it records, and how
 * large it may grow. Every key is optional; without the section (or with none of its keys) nothing
 * is ever pruned. What is pruned, what never is, and how space comes back: docs/retention.md.
 */
import { formatDuration } from '../../src/config/duration.ts';
import { section, whenRead } from '../config/schema-kit.ts';
import { duration, size } from '../config/values.ts';

/**
 * What the pruner applies. `maxAgeMs`: interactions (and conversations) that ended longer ago are
 * pruned. `maxSizeBytes`: the oldest go first until the ledger uses less. `keepEvaluationsMs`:
 * evaluation records outlive their subject until it ended this long ago; absent, they go with it.
 */
export interface RetentionPolicy {
  maxAgeMs?: number;
  maxSizeBytes?: number;
  keepEvaluationsMs?: number;
}

export const retentionSchema = section({
  max_age: duration({ positive: true }).optional(),
  max_size: size().optional(),
  keep_evaluations: duration({ positive: true }).optional(),
})
  .superRefine(
    (retention, context) => {
      const { max_age: maxAge, max_size: maxSize, keep_evaluations: keep } = retention;
      if (keep !== undefined && maxAge === undefined && maxSize === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['keep_evaluations'],
          message: 'applies to what max_age or max_size prune (set one of them, or remove keep_evaluations)',
        });
      }
      if (keep !== undefined && maxAge !== undefined && keep < maxAge) {
        context.addIssue({
          code: 'custom',
          path: ['keep_evaluations'],
          message:
            `must be at least max_age (keep_evaluations ${days(keep)}, max_age ${days(maxAge)}): ` +
            'evaluations are kept as long as their interaction at least',
        });
      }
    },
    whenRead('max_age', 'max_size', 'keep_evaluations'),
  )
  .transform(
    (retention): RetentionPolicy => ({
      ...(retention.max_age !== undefined ? { maxAgeMs: retention.max_age } : {}),
      ...(retention.max_size !== undefined ? { maxSizeBytes: retention.max_size } : {}),
      ...(retention.keep_evaluations !== undefined ? { keepEvaluationsMs: retention.keep_evaluations } : {}),
    }),
  );

const DAY_MS = 86_400_000;

/** Retention periods are written in days: `30d` reads better than formatDuration's `4w2d`. */
export function days(ms: number): string {
  return ms % DAY_MS === 0 ? `${ms / DAY_MS}d` : formatDuration(ms);
}

/** Whether the policy prunes anything at all. */
export function prunes(policy: RetentionPolicy | undefined): policy is RetentionPolicy {
  return policy?.maxAgeMs !== undefined || policy?.maxSizeBytes !== undefined;
}
