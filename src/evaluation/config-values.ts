/**
 * zod schemas for evaluator properties that accept what the `config()` getters read, for a
 * definition's `properties`:
 *
 * ```ts
 * properties: z.object({
 *   'min-length': configValues.int({ min: 0 }),
 *   'max-length': configValues.int({ min: 0 }).optional(),
 * }),
 * ```
 * `int` and `number` also take numeric text and `boolean` the text `true`/`false` (what a
 * `${env:…}` reference inside a longer value leaves), `string` a number or boolean as its text,
 * `stringList` a single string as a list of one. Messages are predicates about the key
 * (`must be a whole number (got string "ten")`); a missing value is left to the caller's wording.
 */
import * as z from 'zod';
import { describeValue } from '../config/describe-value.ts';

interface Bounds {
  min?: number;
  max?: number;
}

/** Leaves a missing value to the parse's error map (which says where to set it). */
const unlessMissing = (message: (input: unknown) => string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? undefined : message(issue.input);

function bounded(schema: z.ZodNumber, bounds: Bounds): z.ZodType<number> {
  return schema.superRefine((value, context) => {
    if (bounds.min !== undefined && value < bounds.min)
      context.addIssue({ code: 'custom', message: `must be at least ${bounds.min} (got ${value})` });
    if (bounds.max !== undefined && value > bounds.max)
      context.addIssue({ code: 'custom', message: `must be at most ${bounds.max} (got ${value})` });
  });
}

const INTEGER_TEXT = /^\s*[-+]?\d+\s*$/;

export const configValues = {
  /** A string; a number or boolean is read as its text. `nonEmpty`: not empty once trimmed. */
  string(options: { nonEmpty?: boolean } = {}): z.ZodType<string> {
    const text = z.string({ error: unlessMissing((input) => `must be a string (got ${describeValue(input)})`) });
    return z.preprocess(
      (value) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value),
      options.nonEmpty ? text.refine((value) => value.trim() !== '', { message: 'must not be empty' }) : text,
    );
  },

  /** A whole number, or its text. */
  int(bounds: Bounds = {}): z.ZodType<number> {
    return z.preprocess(
      (value) => (typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value),
      bounded(
        z.number({ error: unlessMissing((input) => `must be a whole number (got ${describeValue(input)})`) }).int({
          error: (issue) => `must be a whole number (got ${describeValue(issue.input)})`,
        }),
        bounds,
      ),
    );
  },

  /** A finite number, or its text. */
  number(bounds: Bounds = {}): z.ZodType<number> {
    return z.preprocess(
      (value) =>
        typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value,
      bounded(z.number({ error: unlessMissing((input) => `must be a number (got ${describeValue(input)})`) }), bounds),
    );
  },

  /** `true` or `false`, or that text. */
  boolean(): z.ZodType<boolean> {
    return z.preprocess(
      (value) => (value === 'true' ? true : value === 'false' ? false : value),
      z.boolean({ error: unlessMissing((input) => `must be true or false (got ${describeValue(input)})`) }),
    );
  },

  /** A list of strings; a single string is a list of one. `nonEmpty`: at least one. */
  stringList(options: { nonEmpty?: boolean } = {}): z.ZodType<string[]> {
    const list = z.array(z.string(), {
      error: unlessMissing((input) => `must be a string or a list of strings (got ${describeValue(input)})`),
    });
    return z.preprocess(
      (value) => (typeof value === 'string' ? [value] : value),
      options.nonEmpty ? list.min(1, { message: 'must list at least one value' }) : list,
    );
  },

  /** One of `choices` (exactly as written). */
  oneOf<const Choice extends string>(choices: readonly [Choice, ...Choice[]]): z.ZodType<Choice> {
    return z.enum(choices as unknown as [Choice, ...Choice[]], {
      error: unlessMissing(
        (input) =>
          `must be one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')} (got ${describeValue(input)})`,
      ),
    }) as unknown as z.ZodType<Choice>;
  },

  /** A mapping (a JSON schema, a set of thresholds). */
  mapping(): z.ZodType<Record<string, unknown>> {
    return z.record(z.string(), z.unknown(), {
      error: unlessMissing((input) => `must be a mapping (got ${describeValue(input)})`),
    });
  },
};
