/**
 * The YAML schema of one criterion and of a criteria list: a scenario's `eval_criteria` and the
 * `criteria` property of the built-in `criteria-judge` evaluator are exactly this schema.
 *
 * A criterion is a plain string (a binary check named and described by the string) or a mapping.
 * `criterion_type` is trimmed and lowercased; `ordinal` is accepted as an alias of `rubric`.
 */
import { z } from 'zod';
import { DEFAULT_CRITERION_WEIGHT, type Criterion, type CriterionType } from './criterion.ts';
import { describeValue, strictObject } from './strict-object.ts';

const CRITERION_TYPES: Record<string, CriterionType> = {
  binary: 'binary',
  scored: 'scored',
  rubric: 'rubric',
  ordinal: 'rubric',
};

const nonEmpty = (what: string) =>
  z
    .string({ error: (issue) => `expected ${what} as a string, got ${describeValue(issue.input)}` })
    .trim()
    .min(1, { error: `expected a non-empty ${what}` });

const criterionType = z
  .string({ error: (issue) => `expected binary, scored or rubric, got ${describeValue(issue.input)}` })
  .transform((value, ctx) => {
    const type = CRITERION_TYPES[value.trim().toLowerCase()];
    if (type) return type;
    ctx.addIssue({
      code: 'custom',
      message:
        `unknown criterion type "${value.trim().toLowerCase()}" ` +
        '(expected binary, scored or rubric; ordinal is read as rubric)',
    });
    return z.NEVER;
  });

const requireToolCall = z.union([z.boolean(), nonEmpty('tool name'), z.array(nonEmpty('tool name')).min(1)], {
  error: (issue) => `expected true, false, a tool name or a list of tool names, got ${describeValue(issue.input)}`,
});

const threshold = z
  .number({ error: (issue) => `expected a number between 0 and 1, got ${describeValue(issue.input)}` })
  .min(0, { error: 'expected a threshold between 0 and 1' })
  .max(1, { error: 'expected a threshold between 0 and 1' });

const criterionMapping = strictObject(
  {
    name: nonEmpty('criterion name').optional(),
    description: nonEmpty('criterion description').optional(),
    criterion_type: criterionType.optional(),
    require_tool_call: requireToolCall.optional(),
    weight: z
      .number({ error: (issue) => `expected a number, got ${describeValue(issue.input)}` })
      .min(0, { error: 'expected a weight >= 0' })
      .optional(),
    pass_threshold: threshold.optional(),
  },
  'a criterion (a non-empty string or a mapping)',
).transform((raw, ctx): Criterion => {
  if (raw.name === undefined && raw.description === undefined) {
    ctx.addIssue({ code: 'custom', message: 'a criterion needs a name or a description' });
    return z.NEVER;
  }
  const name = raw.name ?? raw.description!;
  const require = raw.require_tool_call ?? false;
  return {
    name,
    description: raw.description ?? name,
    criterionType: raw.criterion_type ?? 'binary',
    requireToolCall: typeof require === 'string' ? [require] : require,
    weight: raw.weight ?? DEFAULT_CRITERION_WEIGHT,
    ...(raw.pass_threshold !== undefined ? { passThreshold: raw.pass_threshold } : {}),
  };
});

/** One criterion: a string (binary, no tool requirement, weight 1) or a mapping. */
export const criterionSchema = z.preprocess((value) => {
  if (typeof value === 'string' && value.trim() !== '') return { name: value.trim(), description: value.trim() };
  return value;
}, criterionMapping);

/** A list of criteria with unique names. */
export const criteriaSchema = z
  .array(criterionSchema, { error: (issue) => `expected a list of criteria, got ${describeValue(issue.input)}` })
  .superRefine((criteria, ctx) => {
    const seen = new Map<string, number>();
    criteria.forEach((criterion, index) => {
      const first = seen.get(criterion.name);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [index, 'name'],
          message: `duplicate criterion name "${criterion.name}" (first used at index ${first}; names must be unique)`,
        });
      } else seen.set(criterion.name, index);
    });
  });
