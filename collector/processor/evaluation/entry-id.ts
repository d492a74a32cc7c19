/**
 * Evaluator entry ids, as component ids in the OpenTelemetry Collector: a key under
 * `processors.evaluation.evaluators` is `type` or `type/name`. The type is an evaluator id (a
 * built-in or one a module defines); the name tells several entries of one type apart
 * (`llm-judge/strict`, `llm-judge/lenient`). The whole key is the entry's id everywhere: records,
 * telemetry, metric labels, the API and the CLI.
 *
 * Two keys that differ only in case name the same entry to a person reading a dashboard, so they
 * are one id twice: `llm-judge/strict` beside `llm-judge/Strict` is a configuration error.
 *
 * Not `parseComponentId` (collector/config/component-id.ts), which exporters use: its type rule (a
 * letter first, no `.`) would refuse evaluator ids `defineEvaluator` allows (`acme.tone`), and its
 * names may hold more `/`s, where an entry's name is letters, digits, `.`, `_` and `-` only.
 */

/** The separator between an entry's type and its name. */
export const ENTRY_NAME_SEPARATOR = '/';
/** A name: letters (either case), digits, `.`, `_`, `-`, starting with a letter or digit. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Longest entry id: it is a metric label and a span name. */
export const MAX_ENTRY_ID_LENGTH = 200;

export interface EntryId {
  /** The evaluator the entry runs (before the `/`). */
  type: string;
  /** After the `/`; absent for the entry named by its type alone. */
  name?: string;
}

/** Splits `type/name` at the first `/`. */
export function parseEntryId(id: string): EntryId {
  const at = id.indexOf(ENTRY_NAME_SEPARATOR);
  return at < 0 ? { type: id } : { type: id.slice(0, at), name: id.slice(at + 1) };
}

/** The evaluator type of an entry id. */
export function entryType(id: string): string {
  const at = id.indexOf(ENTRY_NAME_SEPARATOR);
  return at < 0 ? id : id.slice(0, at);
}

/** Why `id` is not a well-formed entry id (a predicate, as config messages word it), or undefined. */
export function entryIdProblem(id: string): string | undefined {
  if (id.length > MAX_ENTRY_ID_LENGTH) return `is longer than ${MAX_ENTRY_ID_LENGTH} characters`;
  const { type, name } = parseEntryId(id);
  if (type === '') return 'has no evaluator type before "/" (write type/name, such as llm-judge/strict)';
  if (/\s/.test(type)) return 'has white space in its evaluator type';
  if (name === undefined) return undefined;
  if (name === '') return `has an empty name after "/" (write ${type} alone, or ${type}/<name>)`;
  if (!NAME_PATTERN.test(name))
    return (
      `has the name ${JSON.stringify(name)}, which is not letters, digits, ".", "_" and "-" starting with a letter ` +
      'or digit (one "/" separates the type from the name)'
    );
  return undefined;
}

/** The form two ids are compared in: ids equal here are the same entry. */
export function normalEntryId(id: string): string {
  return id.toLowerCase();
}
