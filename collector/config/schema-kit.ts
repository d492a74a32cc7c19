/**
 * The few zod building blocks every component schema uses, and the translation of zod issues
 * into findings whose messages name the YAML key (`sampling-ratio must be between 0 and 1`).
 *
 * Messages in schemas are predicates ("must be …"); `issueToFinding` puts the key in front.
 */
import * as z from 'zod';
import { suggestionHint, closestKey } from './key-suggestions.ts';
import { describeValue, subjectOf, type Finding, type YamlPath } from './yaml-path.ts';

interface UnknownKeyParams {
  kind: 'unknown-key';
  known: readonly string[];
  /** A message for a key that is close to no known key, when the generic one would mislead. */
  explain?: (key: string) => string | undefined;
}

const forbiddenSchemas = new WeakSet<z.ZodType>();

/**
 * A key that must not be written here (a reserved key in the wrong place). `message` says where
 * it belongs. It is left out of the "did you mean" candidates.
 */
export function forbidden(message: string) {
  const schema = z
    .unknown()
    .optional()
    .superRefine((value, context) => {
      if (value !== undefined) context.addIssue({ code: 'custom', message });
    });
  forbiddenSchemas.add(schema);
  return schema;
}

/**
 * A mapping with a fixed set of keys: any other key is a problem with a "did you mean" hint.
 * Left out or empty (`interactions:`), it reads as `{}`, so the defaults apply; add
 * `.optional()` for a component that exists only when written (`otlp:` alone still exists).
 */
export function section<Shape extends z.ZodRawShape>(shape: Shape, options: SectionOptions = {}) {
  return z.preprocess((value) => (value === null || value === undefined ? {} : value), strictObject(shape, options));
}

/** `key:` with nothing after it (YAML null) reads as `{}`. */
export function emptyAsMapping<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => (value === null || value === undefined ? {} : value), schema);
}

/** `key:` with nothing after it reads as `[]`. */
export function emptyAsList<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => (value === null || value === undefined ? [] : value), schema);
}

interface SectionOptions {
  /** The message for an unknown key that is close to no known key, when the generic one would mislead. */
  explainUnknown?: (key: string) => string | undefined;
}

function strictObject<Shape extends z.ZodRawShape>(shape: Shape, options: SectionOptions) {
  const known = Object.keys(shape).filter((key) => !forbiddenSchemas.has(shape[key] as z.ZodType));
  const params: UnknownKeyParams = { kind: 'unknown-key', known, explain: options.explainUnknown };
  const unknownKey = z.unknown().superRefine((_value, context) => {
    context.addIssue({
      code: 'custom',
      message: 'is not a known key',
      params: params as unknown as Record<string, unknown>,
    });
  });
  return z.object(shape).catchall(unknownKey);
}

/**
 * For a refinement of a section: run it when the keys it compares were read, even if other keys
 * of the section have problems (zod skips it by default), so every problem is reported at once.
 */
export function whenRead(...keys: string[]): z.core.$ZodSuperRefineParams {
  return { when: (payload) => payload.issues.every((issue) => !keys.includes(String(issue.path?.[0]))) };
}

/** The per-parse error map: generic zod messages rewritten as predicates about the key. */
export const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.expected === 'nonoptional' || issue.input === undefined) return 'is required';
      if (issue.expected === 'boolean') return `must be true or false (got ${describeValue(issue.input)})`;
      return `must be ${article(issue.expected)} (got ${describeValue(issue.input)})`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])} (got ${describeValue(issue.input)})`
        : `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')} (got ${describeValue(issue.input)})`;
    default:
      return undefined;
  }
};

function article(expected: string): string {
  if (expected === 'object' || expected === 'record') return 'a mapping';
  if (expected === 'array') return 'a list';
  if (expected === 'int') return 'a whole number';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** One zod issue as a finding at its path, its message starting with the key. */
export function issueToFinding(issue: z.core.$ZodIssue): Finding {
  const at: YamlPath = issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
  const subject = subjectOf(at);
  const params = issue.code === 'custom' ? (issue.params as Partial<UnknownKeyParams> | undefined) : undefined;
  if (params?.kind === 'unknown-key') {
    const known = params.known ?? [];
    if (at.length === 1)
      return { at, message: `${subject} is not a known top-level key${suggestionHint(subject, known)}` };
    const explained = closestKey(subject, known) === undefined ? params.explain?.(subject) : undefined;
    return { at, message: `${subject} ${explained ?? `is not a known key${suggestionHint(subject, known)}`}` };
  }
  return { at, message: subject === '' ? issue.message : `${subject} ${issue.message}` };
}
