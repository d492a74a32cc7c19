/**
 * `evalon validate [--config FILE]...`: load the configuration as the collector would and report.
 * Exit 0 with `OK: …` (warnings on stderr first); exit 2 with every problem, one per line.
 */
import { ConfigError, loadConfig } from '../config/index.ts';

export async function runValidateCommand(
  args: { configFiles: string[] },
  io: { out(line: string): void; err(line: string): void },
): Promise<number> {
  let loaded: ReturnType<typeof loadConfig>;
  try {
    loaded = loadConfig(args.configFiles);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const warning of error.warnings) io.err(`warning: ${warning}`);
    for (const line of error.message.split('\n')) io.err(line);
    return 2;
  }
  for (const warning of loaded.warnings) io.err(`warning: ${warning}`);
  const evaluators = Object.values(loaded.config.processors.evaluation.evaluators);
  const bindings = evaluators.reduce((sum, entry) => sum + Object.keys(entry.agents).length + Object.keys(entry.agentRoles).length, 0);
  io.out(`OK: ${args.configFiles.join(', ')} (${plural(evaluators.length, 'evaluator')}, ${plural(bindings, 'binding')})`);
  return 0;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
