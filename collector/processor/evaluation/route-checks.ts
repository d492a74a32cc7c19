/**
 * Checking routes before anything runs: `after` (on an evaluator entry or one of its bindings) must
 * name another configured entry. A route to nothing, or to the entry itself, is a configuration
 * problem at the key that sets it. Pure: no I/O.
 */
import type { ConfigProblem } from '../../../src/config/config-problem.ts';
import type { ConfigLocator } from '../../config/load-config.ts';
import type { EvaluatorEntryConfig } from './config.ts';

/**
 * `after` must name another configured entry: a route to nothing, or to itself, is a
 * configuration problem at the key that sets it.
 */
export function checkRoutes(options: {
  evaluators: Readonly<Record<string, EvaluatorEntryConfig>>;
  locate?: ConfigLocator;
}): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const ids = Object.keys(options.evaluators);
  for (const [id, entry] of Object.entries(options.evaluators)) {
    const places: Array<{ at: string[]; properties: Record<string, unknown> }> = [
      { at: [], properties: entry.properties },
      ...Object.entries(entry.agents).map(([agent, b]) => ({ at: ['agents', agent], properties: b.properties })),
      ...Object.entries(entry.agentRoles).map(([role, b]) => ({ at: ['agent-roles', role], properties: b.properties })),
    ];
    for (const { at, properties } of places) {
      const after = properties.after;
      if (after === undefined || after === null) continue;
      const yamlPath = ['processors', 'evaluation', 'evaluators', id, ...at, 'after'];
      let message: string | undefined;
      if (typeof after !== 'string' || after === '') message = 'must be the id of another evaluator entry';
      else if (after === id) message = `names this entry itself (an entry is routed from another entry's outcome)`;
      else if (!ids.includes(after))
        message =
          `names "${after}", which is not an evaluator entry ` +
          `(configured: ${ids.filter((x) => x !== id).join(', ') || 'none'})`;
      if (!message) continue;
      const position = options.locate?.(yamlPath);
      problems.push({
        path: yamlPath.join('::'),
        message,
        ...(position?.file !== undefined ? { file: position.file } : {}),
        ...(position?.line !== undefined ? { line: position.line } : {}),
      });
    }
  }
  return problems;
}
