/**
 * YAML paths (`['processors', 'evaluation', 'evaluators', 'x']`) and the two ways messages print
 * them: the collector configuration's `processors::evaluation` (as the OpenTelemetry Collector)
 * with the key at fault starting the message, and a scenario file's `participants.agent.type`.
 */

export type YamlPath = ReadonlyArray<string | number>;

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

/** The key a problem at `path` names, for the start of its message. */
export function subjectOf(path: YamlPath): string {
  return splitPath(path).subject;
}

/** `participants.agent.type`, `eval_criteria[2].weight`, `context["a.b"]`. */
export function formatDottedPath(path: YamlPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** A zod issue's path as a YAML path (zod allows symbol keys; YAML has none). */
export function toYamlPath(path: ReadonlyArray<PropertyKey>): YamlPath {
  return path.filter((segment): segment is string | number => typeof segment !== 'symbol');
}

/** The value at `path` in parsed YAML, or undefined where the path leads nowhere. */
export function valueAt(root: unknown, path: YamlPath): unknown {
  let value = root;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
