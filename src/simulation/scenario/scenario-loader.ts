/**
 * Loads a scenario file through the shared configuration kit (`src/config/`): YAML parsed with
 * its positions, then the zod schema; every problem is placed at its line and column (an unknown
 * key at the key, anything else at the value written) and all are reported together in one
 * ScenarioError.
 */
import { readFile } from 'node:fs/promises';
import type * as z from 'zod';
import { placeFindings, type Finding } from '../../config/config-problem.ts';
import { unknownKeyOf } from '../../config/strict-object.ts';
import { toYamlPath, valueAt } from '../../config/yaml-path.ts';
import { parseYamlSource } from '../../config/yaml-source.ts';
import type { Scenario } from './scenario.ts';
import { ScenarioError, type ScenarioIssue } from './scenario-error.ts';
import { scenarioSchema } from './scenario-schema.ts';

/** Aliases expanded at most this many times: a small file cannot grow into a huge value. */
const MAX_ALIAS_COUNT = 1000;

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
  const { source, syntaxErrors } = parseYamlSource(text, file);
  if (syntaxErrors.length > 0) {
    throw new ScenarioError(
      file,
      syntaxErrors.map(({ line, column, message }) => ({
        path: [],
        message: `invalid YAML: ${message}`,
        line,
        column,
      })),
    );
  }
  const value: unknown = source.document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  if (value === null || value === undefined)
    throw new ScenarioError(file, [{ path: [], message: 'the file is empty (expected a scenario mapping)' }]);
  const result = scenarioSchema.safeParse(value);
  if (result.success) return result.data;
  const findings = result.error.issues.map((issue) => findingOf(issue, value));
  throw new ScenarioError(
    file,
    placeFindings(findings, [source]).map(
      ({ at, message, line, column }): ScenarioIssue => ({
        path: [...at],
        message,
        ...(line !== undefined ? { line } : {}),
        ...(column !== undefined ? { column } : {}),
      }),
    ),
  );
}

/**
 * A zod issue at its YAML path: an unknown key points at the key, anything else at what was written
 * there. Any file read with the scenario's wording (a criteria list) places its problems with it.
 */
export function findingOf(issue: z.core.$ZodIssue, root: unknown): Finding {
  const path = toYamlPath(issue.path);
  const unknown = unknownKeyOf(issue);
  if (unknown) return { at: [...path, unknown.key], message: issue.message, point: 'key' };
  const missing = issue.code === 'invalid_type' && valueAt(root, path) === undefined;
  return { at: path, message: missing ? 'is required' : issue.message, point: 'value' };
}
