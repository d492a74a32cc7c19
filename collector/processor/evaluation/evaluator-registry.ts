/**
 * The evaluators this collector can run, by id: the built-ins and those the modules listed in
 * `processors.evaluation.modules` export. Each id is defined once; where it came from (`built-in`
 * or the module file) is kept for messages and `evalon explain`.
 */
import type { EvaluatorDefinition } from '../../../src/evaluation/evaluator.ts';

export const BUILT_IN = 'built-in';

export interface RegisteredEvaluator {
  definition: EvaluatorDefinition;
  /** `built-in`, or the absolute path of the module that exported it. */
  origin: string;
}

export interface EvaluatorRegistry {
  get(id: string): EvaluatorDefinition | undefined;
  origin(id: string): string | undefined;
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
    get: (id) => byId.get(id)?.definition,
    origin: (id) => byId.get(id)?.origin,
    ids: () => [...byId.keys()].sort(),
  };
}
