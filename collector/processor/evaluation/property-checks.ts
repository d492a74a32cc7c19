/**
 * Checking evaluator properties before anything runs. For every evaluator entry whose definition
 * declares a `properties` schema, each binding's effective properties (the binding's over the
 * entry's, key by key, as `config()` merges them; reserved keys left out) are checked against it;
 * an entry without bindings is checked on its own. Every problem is returned at once, as
 * `<YAML path of the binding>: <property>: <what>`.
 *
 * A problem that comes from a value written on the entry, and that the entry alone has too, is
 * reported once at the entry rather than once per binding that inherits it. Evaluators without a
 * schema are left to their getters, at run time. Pure: no I/O.
 */
import type * as z from 'zod';
import type { ConfigProblem } from '../../../src/config/config-problem.ts';
import { closestKey, suggestionHint } from '../../../src/config/key-suggestions.ts';
import { unknownKeyOf } from '../../../src/config/strict-object.ts';
import { formatDottedPath, joinPath, toYamlPath, type YamlPath } from '../../../src/config/yaml-path.ts';
import type { EvaluatorDefinition } from '../../../src/evaluation/evaluator.ts';
import type { ConfigLocator } from '../../config/load-config.ts';
import { type BindingConfig, type EvaluatorEntryConfig, RESERVED_KEYS } from './config.ts';
import { configErrorMap } from '../../config/schema-kit.ts';

const EVALUATORS_PATH: YamlPath = ['processors', 'evaluation', 'evaluators'];
const MISSING = 'is required (set it on the evaluator entry or on the binding)';

export interface PropertyCheckOptions {
  /** The evaluator entries, by id. */
  evaluators: Readonly<Record<string, EvaluatorEntryConfig>>;
  /** The definition of an id (undefined for one nothing defines: reported elsewhere). */
  definitionOf(id: string): EvaluatorDefinition | undefined;
  /** Places a problem in its file (`LoadedConfig.locate`); without it, problems carry their path only. */
  locate?: ConfigLocator;
}

/** One problem with a property: where in the properties, and what is wrong. */
interface PropertyIssue {
  at: YamlPath;
  message: string;
}

export function checkEvaluatorProperties(options: PropertyCheckOptions): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  const report = (scope: YamlPath, issue: PropertyIssue) => {
    const path = joinPath(scope);
    const message = issue.at.length > 0 ? `${formatDottedPath(issue.at)}: ${issue.message}` : issue.message;
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    const position = options.locate?.([...scope, ...issue.at]);
    problems.push({
      path,
      message,
      ...(position?.file !== undefined ? { file: position.file } : {}),
      ...(position?.line !== undefined ? { line: position.line } : {}),
      ...(position?.column !== undefined ? { column: position.column } : {}),
    });
  };

  for (const [id, entry] of Object.entries(options.evaluators)) {
    const schema = options.definitionOf(id)?.properties;
    if (!schema) continue;
    const entryScope = [...EVALUATORS_PATH, id];
    const entryIssues = issuesOf(id, schema, entry.properties);
    const bindings = bindingsOf(entry);
    if (bindings.length === 0) {
      for (const issue of entryIssues) report(entryScope, issue);
      continue;
    }
    const onEntry = new Set(entryIssues.map(signature));
    for (const { at, binding } of bindings) {
      const effective = { ...entry.properties, ...binding.properties };
      for (const issue of issuesOf(id, schema, effective)) {
        const key = issue.at[0];
        const inherited =
          typeof key === 'string' && !Object.hasOwn(binding.properties, key) && Object.hasOwn(entry.properties, key);
        report(inherited && onEntry.has(signature(issue)) ? entryScope : [...entryScope, ...at], issue);
      }
    }
  }
  return problems;
}

function bindingsOf(entry: EvaluatorEntryConfig): Array<{ at: YamlPath; binding: BindingConfig }> {
  return [
    ...Object.entries(entry.agents).map(([agent, binding]) => ({ at: ['agents', agent], binding })),
    ...Object.entries(entry.agentRoles).map(([role, binding]) => ({ at: ['agent-roles', role], binding })),
  ];
}

function signature(issue: PropertyIssue): string {
  return `${joinPath(issue.at)}\u0000${issue.message}`;
}

/** Missing keys get a hint saying where they may be set; other messages are the schema's. */
const propertyErrorMap: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? MISSING : configErrorMap(issue);

function issuesOf(id: string, schema: z.ZodType, properties: Record<string, unknown>): PropertyIssue[] {
  let result: ReturnType<z.ZodType['safeParse']>;
  // A key set to nothing (`pattern:`) reads as not set, as the config() getters read it.
  const written = Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== null));
  try {
    result = schema.safeParse(written, { error: propertyErrorMap, reportInput: true });
  } catch (error) {
    // A schema that throws (an async refinement, a bug in a refinement) cannot pass anything.
    return [{ at: [], message: `the properties schema of evaluator ${id} failed: ${(error as Error).message}` }];
  }
  if (result.success) return [];
  return result.error.issues.flatMap((issue): PropertyIssue[] => {
    const at = toYamlPath(issue.path);
    const unknown = unknownKeyOf(issue);
    // An unknown key among the properties themselves is not a property of the evaluator; deeper
    // down (a criterion's keys), it is an unknown key of that mapping.
    const what = at.length === 0 ? `is not a property of ${id}` : 'is not a known key';
    if (unknown) {
      const { key, known } = unknown;
      // A misspelt reserved key (`sampling_ratio`) lands among the properties: name the key meant.
      const reserved =
        at.length === 0 && closestKey(key, known) === undefined ? closestKey(key, RESERVED_KEYS) : undefined;
      const hint =
        reserved !== undefined
          ? ` (did you mean the reserved key ${JSON.stringify(reserved)}?)`
          : suggestionHint(key, known, at.length === 0 ? 'known properties' : 'known keys');
      return [{ at: [...at, key], message: `${what}${hint}` }];
    }
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ at: [...at, key], message: what }));
    return [{ at, message: issue.message }];
  });
}
