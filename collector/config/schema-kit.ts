/**
 * The zod building blocks of the collector's component schemas, and the translation of zod issues
 * into findings whose messages start with the YAML key (`sampling-ratio must be between 0 and 1`),
 * as the OpenTelemetry Collector words them. Unknown keys and forbidden keys come from the shared
 * kit (`src/config/strict-object.ts`), which scenario files use too.
 *
 * Messages in schemas are predicates ("must be …"); `issueToFinding` puts the key in front.
 */
import * as z from 'zod';
import type { Finding } from '../../src/config/config-problem.ts';
import { describeValue } from '../../src/config/describe-value.ts';
import { closestKey, suggestionHint } from '../../src/config/key-suggestions.ts';
import { strictObject, unknownKeyOf } from '../../src/config/strict-object.ts';
import { subjectOf, toYamlPath } from '../../src/config/yaml-path.ts';

interface SectionOptions {
  /** The message for an unknown key that is close to no known key, when the generic one would mislead. */
  explainUnknown?: (key: string) => string | undefined;
}

/**
 * A mapping with a fixed set of keys: any other key is a problem with a "did you mean" hint.
 * Left out or empty (`interactions:`), it reads as `{}`, so the defaults apply; add
 * `.optional()` for a component that exists only when written (`otlp:` alone still exists).
 */
export function section<Shape extends z.ZodRawShape>(shape: Shape, options: SectionOptions = {}) {
  return z.preprocess(
    (value) => (value === null || value === undefined ? {} : value),
    strictObject(shape, { explainUnknown: options.explainUnknown }),
  );
}

/** `key:` with nothing after it (YAML null) reads as `{}`. */
export function emptyAsMapping<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => (value === null || value === undefined ? {} : value), schema);
}

/** `key:` with nothing after it reads as `[]`. */
export function emptyAsList<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => (value === null || value === undefined ? [] : value), schema);
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
        : `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')} (got ` +
            `${describeValue(issue.input)})`;
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
  const path = toYamlPath(issue.path);
  const unknown = unknownKeyOf(issue);
  if (unknown) {
    const { key, known } = unknown;
    const at = [...path, key];
    if (path.length === 0) return { at, message: `${key} is not a known top-level key${suggestionHint(key, known)}` };
    const explained = closestKey(key, known) === undefined ? unknown.explain?.(key) : undefined;
    return { at, message: `${key} ${explained ?? `is not a known key${suggestionHint(key, known)}`}` };
  }
  const subject = subjectOf(path);
  return { at: path, message: subject === '' ? issue.message : `${subject} ${issue.message}` };
}
