/**
 * `evalon validate [--config FILE]...`: load the configuration as the collector would, then load
 * its evaluator modules as startup does (so a module that fails to import, an id defined twice or
 * an evaluator entry nothing defines is reported here, not at the first deployment), and report.
 * Exit 0 with `OK: …` (warnings on stderr first); exit 2 with every problem, one per line.
 */
import { BUILT_IN_EVALUATORS } from '../evaluators/index.ts';
import { ConfigError, loadConfig } from '../config/index.ts';
import { loadEvaluatorRegistry } from '../processor/evaluation/load-evaluator-modules.ts';

export async function runValidateCommand(
  args: { configFiles: string[] },
  io: { out(line: string): void; err(line: string): void },
): Promise<number> {
  const report = (error: ConfigError) => {
    for (const warning of error.warnings) io.err(`warning: ${warning}`);
    for (const line of error.message.split('\n')) io.err(line);
    return 2;
  };
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig(args.configFiles);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return report(error);
  }
  for (const warning of loaded.warnings) io.err(`warning: ${warning}`);
  const evaluation = loaded.config.processors.evaluation;
  try {
    await loadEvaluatorRegistry({
      modules: evaluation.modules,
      builtIns: BUILT_IN_EVALUATORS,
      configuredIds: Object.keys(evaluation.evaluators),
      evaluators: evaluation.evaluators,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return report(error);
  }
  const evaluators = Object.values(evaluation.evaluators);
  const bindings = evaluators.reduce(
    (sum, entry) => sum + Object.keys(entry.agents).length + Object.keys(entry.agentRoles).length,
    0,
  );
  const modules = evaluation.modules.length > 0 ? `, ${plural(evaluation.modules.length, 'module')} loaded` : '';
  io.out(
    `OK: ${args.configFiles.join(', ')} (${plural(evaluators.length, 'evaluator')}, ` +
      `${plural(bindings, 'binding')}${modules})`,
  );
  return 0;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
