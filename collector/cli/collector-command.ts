/** `evalon collector`: loads the configuration, starts the service, stops it on SIGINT/SIGTERM. */
import { loadConfig } from '../config/index.ts';
import { startCollector } from '../service.ts';
import { createLogger } from '../logger.ts';
import { CONFIG_OPTION, configFilesFrom } from './args.ts';
import type { CliIo } from './cli-io.ts';
import type { CliCommand } from './command.ts';

export const collectorCommand: CliCommand = {
  help: {
    usage: '[--config FILE]...',
    description:
      'Runs the collector: receives OTLP spans, records one interaction per agent invocation in the ledger and ' +
      'runs the evaluators bound to its agent. Ctrl-C or SIGTERM stops it after in-flight work.',
    options: [CONFIG_OPTION],
    examples: ['evalon collector --config otel-config.yaml --config prod.yaml'],
  },
  run: (args, io) => runCollectorCommand({ configFiles: configFilesFrom(args, 'collector') }, io),
};

export async function runCollectorCommand(args: { configFiles: string[] }, io: CliIo): Promise<number> {
  const { config, warnings, locate } = loadConfig(args.configFiles);
  for (const warning of warnings) io.err(`warning: ${warning}`);
  const logger = createLogger();
  const collector = await startCollector(config, { logger, locateConfig: locate });
  logger.info(`evalon collector running with ${args.configFiles.join(', ')}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info(`${signal}: shutting down`);
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  await collector.shutdown();
  return 0;
}
