/**
 * The evaluators this collector can run, by id: the built-ins and those the modules listed in
 * `processors.evaluation.modules` export. Each id is defined once; where it came from (`built-in`
 * or the module file) is kept for messages and `evalon explain`. An evaluator entry's id
 * (`llm-judge/strict`) resolves to the evaluator of its type (`llm-judge`).
 */
import type { EvaluatorDefinition } from '../../../src/evaluation/evaluator.ts';
import { entryType } from './entry-id.ts';

export const BUILT_IN = 'built-in';

export interface RegisteredEvaluator {
  definition: EvaluatorDefinition;
  /** `built-in`, or the absolute path of the module that exported it. */
  origin: string;
}

export interface EvaluatorRegistry {
  /** The evaluator an entry id (`type` or `type/name`) runs. */
  get(entryId: string): EvaluatorDefinition | undefined;
  origin(entryId: string): string | undefined;
  /** The evaluator ids (types), sorted. */
  ids(): string[];
}

export function createEvaluatorRegistry(evaluators: readonly RegisteredEvaluator[]): EvaluatorRegistry {
  const byId = new Map<string, RegisteredEvaluator>();
  for (const registered of evaluators) {
    const existing = byId.get(registered.definition.id);
    if (existing && existing.definition !== registered.definition) {
      throw new Error(
        `evaluator id "${registered.definition.id}" is defined twice: by ${existing.origin} and by ` +
          `${registered.origin}`,
      );
    }
    byId.set(registered.definition.id, registered);
  }
  return {
    get: (entryId) => byId.get(entryType(entryId))?.definition,
    origin: (entryId) => byId.get(entryType(entryId))?.origin,
    ids: () => [...byId.keys()].sort(),
  };
}
