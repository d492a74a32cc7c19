/**
 * The collector service: the one place that wires components from the configuration
 * (receiver → interactions processor → ledger; the API beside them) and owns their lifecycle.
 * Components never build their successors; they are given `next` here.
 */
import type { EvalonConfig } from './config/index.ts';
import type { LedgerStore } from './ledger/store.ts';
import { createSqliteStore } from './ledger/sqlite/sqlite-store.ts';
import { createApiServer } from './api/api-server.ts';
import { createOtlpReceiver } from './receiver/otlp/otlp-receiver.ts';
import { createInteractionsProcessor, type InteractionsProcessor } from './processor/interactions/interactions-processor.ts';
import { createLogger, type Logger } from './logger.ts';

export interface RunningCollector {
  readonly store: LedgerStore;
  readonly processor: InteractionsProcessor;
  /** Where the OTLP receiver listens, when it is configured. */
  readonly otlpAddress?: { host: string; port: number };
  /** Where the API listens, when it is configured. */
  readonly apiAddress?: { host: string; port: number };
  /** Stops accepting spans, finishes in-flight work, closes the store. Safe twice. */
  shutdown(): Promise<void>;
}

export class CollectorStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CollectorStartError';
  }
}

export async function startCollector(config: EvalonConfig, options: { logger?: Logger; clock?: () => number } = {}): Promise<RunningCollector> {
  const logger = options.logger ?? createLogger();
  const evaluation = config.processors.evaluation;
  if (evaluation.ledger.kind !== 'sqlite') {
    throw new CollectorStartError('processors::evaluation::ledger::postgres: the PostgreSQL ledger is not available in this version (use sqlite)');
  }
  const store = createSqliteStore({ path: evaluation.ledger.path });
  const processor = createInteractionsProcessor({
    store,
    config: config.processors.interactions,
    clock: options.clock,
    logger,
  });

  const stops: Array<() => Promise<void>> = [];
  let stopped: Promise<void> | undefined;
  const shutdown = () =>
    (stopped ??= (async () => {
      for (const stop of stops.reverse()) {
        try {
          await stop();
        } catch (error) {
          logger.error(`shutdown: ${String(error)}`);
        }
      }
    })());

  try {
    await processor.start();
    stops.push(() => store.close(), () => processor.shutdown());

    let otlpAddress: RunningCollector['otlpAddress'];
    const otlp = config.receivers.otlp;
    const tracesPipeline = config.service.pipelines.traces;
    if (otlp && tracesPipeline?.receivers.includes('otlp')) {
      const receiver = createOtlpReceiver(
        { host: otlp.http.host, port: otlp.http.port, maxRequestBodyBytes: otlp.http.maxRequestBodyBytes, bearerToken: otlp.http.bearerToken },
        processor,
        { logger },
      );
      await receiver.start().catch((error: unknown) => {
        throw new CollectorStartError(`receivers::otlp::protocols::http::endpoint: cannot listen on ${otlp.http.host}:${otlp.http.port} (${errorText(error)})`, { cause: error });
      });
      stops.push(() => receiver.shutdown());
      const bound = receiver.address();
      otlpAddress = bound;
      logger.info(`OTLP/HTTP receiver listening on http://${bound.host}:${bound.port}/v1/traces`);
    }

    let apiAddress: RunningCollector['apiAddress'];
    const apiConfig = config.extensions.api;
    if (apiConfig && config.service.extensions.includes('api')) {
      const api = createApiServer({
        host: apiConfig.host,
        port: apiConfig.port,
        store,
        ready: () => (processor.ready() ? true : { ready: false, reason: 'recovering pending spans or shutting down' }),
        stats: () => ({
          ...processor.stats,
          pendingTraces: processor.assembler.pendingTraces(),
          pendingSpans: processor.assembler.pendingSpans(),
          duplicateSpans: processor.assembler.stats.duplicateSpans,
          unassignedSpans: processor.assembler.stats.unassignedSpans,
          completed: processor.assembler.stats.completed,
          memory: memoryMiB(),
        }),
      });
      await api.start().catch((error: unknown) => {
        throw new CollectorStartError(`extensions::api::endpoint: cannot listen on ${apiConfig.host}:${apiConfig.port} (${errorText(error)})`, { cause: error });
      });
      stops.push(() => api.shutdown());
      const bound = api.address();
      apiAddress = bound;
      logger.info(`API listening on http://${bound.host}:${bound.port}`);
    }
    return { store, processor, otlpAddress, apiAddress, shutdown };
  } catch (error) {
    await shutdown();
    throw error;
  }
}

function memoryMiB(): Record<string, number> {
  const usage = process.memoryUsage();
  const mib = (bytes: number) => Math.round(bytes / 1048576);
  return { rssMiB: mib(usage.rss), heapUsedMiB: mib(usage.heapUsed), heapTotalMiB: mib(usage.heapTotal), externalMiB: mib(usage.external) };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
