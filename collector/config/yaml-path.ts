/**
 * YAML paths (`processors::evaluation::evaluators::x`) and the findings the loader's checks
 * produce before they are placed in a file.
 */

export type YamlPath = ReadonlyArray<string | number>;

/**
 * Something a check found. `at` is the full path of the offending key or list item; `message`
 * already names it (see `subjectOf`), so `at` only places it.
 */
export interface Finding {
  at: YamlPath;
  message: string;
}

/** `a::b::0`. */
export function joinPath(path: YamlPath): string {
  return path.join('::');
}

/**
 * Splits a path into the mapping a problem is reported in and the key it names:
 * `[service, pipelines, traces, processors, 1]` -> `service::pipelines::traces` and `processors[1]`.
 */
export function splitPath(path: YamlPath): { where: string; subject: string } {
  let last = path.length - 1;
  while (last >= 0 && typeof path[last] === 'number') last--;
  if (last < 0) return { where: '', subject: path.map((index) => `[${index}]`).join('') };
  const indices = path
    .slice(last + 1)
    .map((index) => `[${index}]`)
    .join('');
  return { where: joinPath(path.slice(0, last)), subject: `${String(path[last])}${indices}` };
}

/** The key a finding at `path` names, for the start of its message. */
export function subjectOf(path: YamlPath): string {
  return splitPath(path).subject;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as a short phrase for messages: `string "x"`, `number 2`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'an empty value';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}
