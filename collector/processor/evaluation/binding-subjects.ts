/**
 * A binding can only ask an evaluator for what it can judge: `trigger: conversation` on an
 * evaluator that does not list `conversation` in its `subjects` is a configuration problem,
 * reported at startup and by `evalon validate` with the binding's YAML path.
 */
import type { EvaluatorDefinition } from '../../../src/evaluation/evaluator.ts';
import type { ConfigProblem } from '../../config/config-error.ts';
import type { EvaluatorEntryConfig } from './config.ts';

const EVALUATORS_PATH = 'processors::evaluation::evaluators';

export function bindingSubjectProblems(
  evaluators: Readonly<Record<string, EvaluatorEntryConfig>>,
  definitionOf: (id: string) => EvaluatorDefinition | undefined,
  all: readonly EvaluatorDefinition[],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const conversational = all
    .filter((definition) => definition.subjects.includes('conversation'))
    .map((definition) => definition.id)
    .sort();
  for (const [id, entry] of Object.entries(evaluators)) {
    const definition = definitionOf(id);
    if (!definition) continue; // reported as an unknown evaluator
    for (const [section, bindings] of [
      ['agents', entry.agents],
      ['agent-roles', entry.agentRoles],
    ] as const) {
      for (const [key, binding] of Object.entries(bindings)) {
        if (!definition.subjects.includes(binding.trigger)) {
          problems.push({
            path: `${EVALUATORS_PATH}::${id}::${section}::${key}`,
            message:
              `trigger ${binding.trigger}: evaluator "${id}" cannot judge a ${binding.trigger} (it judges ` +
              `${definition.subjects.map((kind) => `${kind}s`).join(' and ')}; use trigger: ${definition.subjects[0]}` +
              (binding.trigger === 'conversation' && conversational.length > 0
                ? `, or an evaluator that judges conversations: ${conversational.join(', ')})`
                : ')'),
          });
        }
      }
    }
  }
  return problems;
}
