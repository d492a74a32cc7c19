/**
 * Problems of a configuration or scenario file as data: first findings (a YAML path and what is
 * wrong there), then placed in the files they came from, then printed one per line as
 * `file:line:column: path: message`. Loaders collect every finding before they report, so a
 * file's problems are all listed at once.
 */
import { locate, type PointAt, type YamlSource } from './yaml-source.ts';
import { joinPath, type YamlPath } from './yaml-path.ts';

/** Something a check found, before it is placed in a file. */
export interface Finding {
  /** The full path of the offending key or list item. */
  at: YamlPath;
  message: string;
  /** Whether the problem points at the key `at` names or at its value; the key by default. */
  point?: PointAt;
}

/** A finding with the place it was written, as far as it is known. */
export interface PlacedFinding extends Finding {
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
}

/**
 * One thing wrong with a file, as reported. `path` is the YAML path in the file's printed form;
 * `message` says what is wrong and ends with a hint in parentheses where one helps.
 */
export interface ConfigProblem {
  path: string;
  message: string;
  /** The file the offending value was read from, as the caller named it. */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
}

/** `file:line:column: path: message`, leaving out the parts that are unknown. */
export function formatConfigProblem(problem: ConfigProblem): string {
  let where = problem.file ?? '';
  if (problem.file !== undefined && problem.line !== undefined) {
    where += `:${problem.line}`;
    if (problem.column !== undefined) where += `:${problem.column}`;
  }
  const parts = [where, problem.path, problem.message].filter((part) => part !== '');
  return parts.join(': ');
}

/** Findings placed in their files and sorted as they appear there (files in the order given); duplicates dropped. */
export function placeFindings(findings: readonly Finding[], sources: readonly YamlSource[]): PlacedFinding[] {
  const seen = new Set<string>();
  const placed: Array<PlacedFinding & { order: number }> = [];
  for (const finding of findings) {
    const position = locate(sources, finding.at, finding.point);
    const found: PlacedFinding = { ...finding };
    if (position) {
      found.file = position.file;
      if (position.line !== undefined) found.line = position.line;
      if (position.column !== undefined) found.column = position.column;
    }
    const key = [found.file, found.line, found.column, joinPath(found.at), found.message].join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    placed.push({ ...found, order: sources.findIndex((source) => source.file === found.file) });
  }
  placed.sort((a, b) => a.order - b.order || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return placed.map(({ order: _order, ...finding }) => finding);
}

/**
 * A message split into what is wrong and the hint that ends it, by the convention every message
 * follows (`<what> (<hint>)`): `unknown key "x" (did you mean "y"?)` -> `unknown key "x"` and
 * `did you mean "y"?`. Parentheses inside double-quoted text do not count. Without a final
 * parenthesised remark, or when it is the whole message, there is no hint.
 */
export function splitHint(message: string): { message: string; hint?: string } {
  const trimmed = message.trimEnd();
  if (!trimmed.endsWith(')')) return { message };
  let depth = 0;
  let quoted = false;
  let open = -1;
  let close = -1;
  for (let index = 0; index < trimmed.length; index++) {
    const char = trimmed[index];
    if (quoted) {
      if (char === '\\') index++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === '(') {
      if (depth === 0) open = index;
      depth++;
    } else if (char === ')' && depth > 0) {
      depth--;
      if (depth === 0) close = index;
    }
  }
  const what = open > 0 ? trimmed.slice(0, open).trimEnd() : '';
  if (depth !== 0 || quoted || close !== trimmed.length - 1 || what === '') return { message };
  return { message: what, hint: trimmed.slice(open + 1, -1) };
}
