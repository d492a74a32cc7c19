/** `evalon collector`: loads the configuration, starts the service, stops it on SIGINT/SIGTERM. */
import { format } from 'node:util';
import { setLogger as setGrpcLogger } from '@grpc/grpc-js';
import { loadConfig } from '../config/index.ts';
import { secretsOf } from '../config/secrets.ts';
import { startCollector } from '../service.ts';
import { createLogger, type Logger } from '../logger.ts';
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

export async function runCollectorCommand(args: { configFiles: string[] }, _io: CliIo): Promise<number> {
  const { config, warnings, locate } = loadConfig(args.configFiles);
  // `service.telemetry.logs` chooses the level and encoding; the configuration's secrets are scrubbed.
  // Everything the running collector says goes through it, so a log shipper reads every line.
  const logger = createLogger({ ...config.service.telemetry.logs, secrets: secretsOf(config) });
  for (const warning of warnings) logger.warn(`configuration: ${warning}`);
  routeGrpcLog(logger);
  let collector: Awaited<ReturnType<typeof startCollector>>;
  try {
    collector = await startCollector(config, { logger, locateConfig: locate });
  } catch (error) {
    // In JSON, the line that says why startup failed is a log record like the others.
    if (config.service.telemetry.logs.encoding !== 'json') throw error;
    logger.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
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

/**
 * grpc-js writes its own errors (a port in use) to stderr in its own format. This command owns the
 * process, so it sends them through the collector's log instead: in JSON too, every line is one
 * record. (grpc-js has one logger per process; the library code never sets it.)
 */
function routeGrpcLog(logger: Logger): void {
  const line = (message?: unknown, ...params: unknown[]) => `grpc-js: ${format(message, ...params)}`;
  setGrpcLogger({
    error: (message?: unknown, ...params: unknown[]) => logger.warn(line(message, ...params)),
    info: (message?: unknown, ...params: unknown[]) => logger.info(line(message, ...params)),
    debug: (message?: unknown, ...params: unknown[]) => logger.debug?.(line(message, ...params)),
  });
}
