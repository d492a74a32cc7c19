/**
 * Loads a scenario file: YAML through the `yaml` Document API (so every problem gets a line and
 * column), then the zod schema. All problems are reported together in one ScenarioError.
 */
import { readFile } from 'node:fs/promises';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import type { Scenario } from './scenario.ts';
import { ScenarioError, type ScenarioIssue } from './scenario-error.ts';
import { scenarioSchema } from './scenario-schema.ts';

export async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ScenarioError(path, [{ path: [], message: `cannot read the scenario file (${code})` }], { cause: error });
  }
  return { ...parseScenario(text, path), sourcePath: path };
}

/** Parses scenario YAML text; `file` names it in errors. */
export function parseScenario(text: string, file = '<scenario>'): Scenario {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    throw new ScenarioError(
      file,
      document.errors.map((error) => {
        const position = lines.linePos(error.pos[0]);
        return {
          path: [],
          message: `invalid YAML: ${firstLine(error.message)}`,
          line: position.line,
          column: position.col,
        };
      }),
    );
  }
  const value: unknown = document.toJS({ maxAliasCount: 1000 });
  if (value === null || value === undefined)
    throw new ScenarioError(file, [{ path: [], message: 'the file is empty (expected a scenario mapping)' }]);
  const result = scenarioSchema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) => toIssues(issue, value, document, lines));
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  throw new ScenarioError(file, issues);
}

function toIssues(issue: z.core.$ZodIssue, root: unknown, document: Document, lines: LineCounter): ScenarioIssue[] {
  const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    // One issue per unknown key, located at the key itself.
    const messages = issue.message.split('; ');
    return issue.keys.map((key, index) =>
      locate([...path, key], messages[index] ?? `unknown key "${key}"`, document, lines, true),
    );
  }
  if (issue.code === 'invalid_type' && valueAt(root, path) === undefined) {
    return [locate(path, 'is required', document, lines)];
  }
  return [locate(path, issue.message, document, lines)];
}

function locate(
  path: Array<string | number>,
  message: string,
  document: Document,
  lines: LineCounter,
  atKey = false,
): ScenarioIssue {
  for (let length = path.length; length >= 0; length--) {
    const position = positionOf(document, path.slice(0, length), atKey && length === path.length);
    if (position !== undefined) {
      const { line, col } = lines.linePos(position);
      return { path, message, line, column: col };
    }
  }
  return { path, message };
}

function positionOf(document: Document, path: Array<string | number>, atKey: boolean): number | undefined {
  if (path.length === 0)
    return document.contents && isNode(document.contents) ? document.contents.range?.[0] : undefined;
  if (atKey) {
    const parent = document.getIn(path.slice(0, -1), true) as { items?: Array<{ key: unknown }> } | undefined;
    const pair = parent?.items?.find(
      (item) => isNode(item.key) && (item.key as { value?: unknown }).value === path[path.length - 1],
    );
    if (pair && isNode(pair.key)) return pair.key.range?.[0];
  }
  const node = document.getIn(path, true);
  return isNode(node) ? node.range?.[0] : undefined;
}

function valueAt(root: unknown, path: Array<string | number>): unknown {
  let value = root;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

function firstLine(message: string): string {
  return message.split('\n')[0];
}
