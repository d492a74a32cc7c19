/** Small argument helpers shared by the commands. */
import { parseArgs } from 'node:util';
import type { OptionHelp } from './command.ts';

/** Bad command-line input: reported as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const DEFAULT_CONFIG_FILE = 'otel-config.yaml';

/** `--config FILE`, as every command that reads the configuration documents it. */
export const CONFIG_OPTION: OptionHelp = {
  flag: '--config FILE',
  short: '-c',
  description: 'configuration file; repeat it to layer overrides (later files win key by key)',
  default: DEFAULT_CONFIG_FILE,
};

/** The `--config` files of a command (repeatable), or the default one. Other options are errors. */
export function configFilesFrom(args: string[], command: string): string[] {
  try {
    const { values } = parseArgs({
      args,
      options: { config: { type: 'string', short: 'c', multiple: true } },
      strict: true,
      allowPositionals: false,
    });
    return values.config?.length ? values.config : [DEFAULT_CONFIG_FILE];
  } catch (error) {
    throw new UsageError(`evalon ${command}: ${(error as Error).message}`);
  }
}
