/**
 * Loading evaluator modules at startup. A module exports evaluator definitions (`defineEvaluator`)
 * as named exports, as its default export, or in arrays. Every problem is collected and thrown
 * together as one `ConfigError`, each naming the module file (or the YAML path) and what is wrong:
 * a module that fails to import, one that exports no evaluator, an id defined twice, an
 * evaluator configured under `processors.evaluation.evaluators` that nothing defines, and, given
 * the entries, every binding's properties that its evaluator's `properties` schema refuses
 * (property-checks.ts) and every binding whose trigger its evaluator cannot judge
 * (binding-subjects.ts).
 */
import { pathToFileURL } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { isEvaluatorDefinition, type EvaluatorDefinition } from '../../../src/evaluation/evaluator.ts';
import { ConfigError, type ConfigProblem } from '../../config/config-error.ts';
import type { ConfigLocator } from '../../config/load-config.ts';
import { bindingSubjectProblems } from './binding-subjects.ts';
import type { EvaluatorEntryConfig } from './config.ts';
import { closestKey } from '../../../src/config/key-suggestions.ts';
import {
  BUILT_IN,
  createEvaluatorRegistry,
  type EvaluatorRegistry,
  type RegisteredEvaluator,
} from './evaluator-registry.ts';
import { entryType, parseEntryId } from './entry-id.ts';
import { checkEvaluatorProperties } from './property-checks.ts';
import { checkRoutes } from './route-checks.ts';

const MODULES_PATH = 'processors::evaluation::modules';
const EVALUATORS_PATH = 'processors::evaluation::evaluators';

export interface LoadEvaluatorsOptions {
  /** Absolute paths, as the configuration loader resolved them. */
  modules: readonly string[];
  builtIns: readonly EvaluatorDefinition[];
  /** Entry ids the configuration has (`type` or `type/name`): each type must be defined. */
  configuredIds: readonly string[];
  /**
   * The entries themselves: their bindings' properties are checked against each evaluator's schema,
   * their triggers against what it can judge.
   */
  evaluators?: Readonly<Record<string, EvaluatorEntryConfig>>;
  /** Places property problems in their files (`LoadedConfig.locate`). */
  locate?: ConfigLocator;
}

export async function loadEvaluatorRegistry(options: LoadEvaluatorsOptions): Promise<EvaluatorRegistry> {
  const problems: ConfigProblem[] = [];
  const registered: RegisteredEvaluator[] = options.builtIns.map((definition) => ({ definition, origin: BUILT_IN }));
  const loaded = new Set<string>();
  for (const [index, file] of options.modules.entries()) {
    if (loaded.has(file)) continue;
    loaded.add(file);
    const path = `${MODULES_PATH}[${index}]`;
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (error) {
      problems.push({ file, path, message: `cannot load the evaluator module: ${errorText(error)}` });
      continue;
    }
    const definitions = definitionsIn(exports);
    if (definitions.length === 0) {
      const names = Object.keys(exports);
      problems.push({
        file,
        path,
        message:
          `exports no evaluator (exports: ${names.length > 0 ? names.join(', ') : 'none'}; export the result ` +
          'of defineEvaluator({ id, create }) from evalon/evaluation)',
      });
    }
    for (const definition of definitions) registered.push({ definition, origin: file });
  }

  const byId = new Map<string, RegisteredEvaluator>();
  const unique: RegisteredEvaluator[] = [];
  for (const candidate of registered) {
    const existing = byId.get(candidate.definition.id);
    if (!existing) {
      byId.set(candidate.definition.id, candidate);
      unique.push(candidate);
    } else if (existing.definition !== candidate.definition) {
      const file = candidate.origin === BUILT_IN ? undefined : candidate.origin;
      problems.push({
        ...(file ? { file } : {}),
        path: MODULES_PATH,
        message:
          `evaluator id "${candidate.definition.id}" is defined twice: by ${existing.origin} and by ` +
          `${candidate.origin} (ids must be unique; rename one)`,
      });
    }
  }

  const known = [...byId.keys()].sort();
  for (const id of options.configuredIds) {
    const { type, name } = parseEntryId(id);
    if (byId.has(type)) continue;
    const meant = closestKey(type, known);
    const hint =
      meant !== undefined
        ? `did you mean "${meant}"?`
        : known.length > 0
          ? `known evaluators: ${known.join(', ')}`
          : 'no evaluator is defined';
    problems.push({
      path: `${EVALUATORS_PATH}::${id}`,
      message:
        `${name !== undefined ? `the entry's type (before "/"): ` : ''}no evaluator with id "${type}" is defined by ` +
        `a built-in or by a module in ${MODULES_PATH} (${hint})`,
    });
  }
  if (options.evaluators) {
    problems.push(
      ...checkEvaluatorProperties({
        evaluators: options.evaluators,
        // Entries are keyed `type` or `type/name`: the type is the evaluator whose schema applies.
        definitionOf: (id) => byId.get(entryType(id))?.definition,
        ...(options.locate ? { locate: options.locate } : {}),
      }),
      ...checkRoutes({ evaluators: options.evaluators, ...(options.locate ? { locate: options.locate } : {}) }),
    );
    const definitions = unique.map((registered) => registered.definition);
    problems.push(
      ...bindingSubjectProblems(options.evaluators, (id) => byId.get(entryType(id))?.definition, definitions),
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return createEvaluatorRegistry(unique);
}

/** Definitions among a module's exports, each once (a definition exported under two names counts once). */
function definitionsIn(exports: Record<string, unknown>): EvaluatorDefinition[] {
  const found = new Set<EvaluatorDefinition>();
  for (const value of Object.values(exports)) {
    if (isEvaluatorDefinition(value)) found.add(value);
    else if (Array.isArray(value)) for (const item of value) if (isEvaluatorDefinition(item)) found.add(item);
  }
  return [...found];
}

/** Longest error text quoted from a failed import (a transform error can list a whole file). */
const MAX_ERROR_CHARS = 300;

function errorText(error: unknown): string {
  // A transformer may colour its message: the terminal escapes are dropped.
  const text = stripVTControlCharacters(error instanceof Error ? `${error.name}: ${error.message}` : String(error))
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
