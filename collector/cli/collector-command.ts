/** `evalon collector`: loads the configuration, starts the service, stops it on SIGINT/SIGTERM. */
import { loadConfig } from '../config/index.ts';
import { startCollector } from '../service.ts';
import { createLogger } from '../logger.ts';
import type { CliIo } from './cli-io.ts';

export async function runCollectorCommand(args: { configFiles: string[] }, io: CliIo): Promise<number> {
  const { config, warnings } = loadConfig(args.configFiles);
  for (const warning of warnings) io.err(`warning: ${warning}`);
  const logger = createLogger();
  const collector = await startCollector(config, { logger });
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
