/**
 * The collector service: the one place that wires components from the configuration
 * (receiver → interactions processor → evaluation processor, both over the ledger; the API beside
 * them) and owns their lifecycle. Components never build their successors; they are given `next`
 * here.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EvalonConfig } from './config/index.ts';
import type { LedgerStore } from './ledger/store.ts';
import { openLedgerStore } from './ledger/open-store.ts';
import { createApiServer } from './api/api-server.ts';
import { createOtlpReceiver } from './receiver/otlp/otlp-receiver.ts';
import { createOtlpGrpcReceiver } from './receiver/otlp/grpc/otlp-grpc-receiver.ts';
import {
  createInteractionsProcessor,
  type InteractionsProcessor,
} from './processor/interactions/interactions-processor.ts';
import { createLogger, type Logger } from './logger.ts';
import { createBuiltInEvaluators, type JudgeEnvironment } from './evaluators/index.ts';
import { createEvaluationProcessor, type EvaluationProcessor } from './processor/evaluation/evaluation-processor.ts';
import type { EvaluatorRegistry } from './processor/evaluation/evaluator-registry.ts';
import { loadEvaluatorRegistry } from './processor/evaluation/load-evaluator-modules.ts';
import { createForwardingConsumer, createTelemetryExporters } from './exporter/index.ts';

export interface RunningCollector {
  readonly store: LedgerStore;
  readonly processor: InteractionsProcessor;
  /** Triggers and runs the evaluations bound to each new interaction. */
  readonly evaluation: EvaluationProcessor;
  /** The evaluators this collector can run: built-ins and those of `processors.evaluation.modules`. */
  readonly registry: EvaluatorRegistry;
  /** Where the OTLP receiver listens, when it is configured. */
  readonly otlpAddress?: { host: string; port: number };
  /** Where the OTLP/gRPC receiver listens, when `receivers.otlp.protocols.grpc` is configured. */
  readonly otlpGrpcAddress?: { host: string; port: number };
  /** Where the API listens, when it is configured. */
  readonly apiAddress?: { host: string; port: number };
  /** Where the Prometheus scrape endpoint listens, when it is configured. */
  readonly prometheusAddress?: { host: string; port: number };
  /** Stops accepting spans, finishes in-flight work, closes the store. Safe twice. */
  shutdown(): Promise<void>;
}

export class CollectorStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CollectorStartError';
  }
}

export interface StartCollectorOptions {
  logger?: Logger;
  clock?: () => number;
  /** Where the built-in LLM judges read their model settings, by evaluator id (default `process.env`; the test kit's scripted models). */
  judgeEnv?: JudgeEnvironment;
}

export async function startCollector(
  config: EvalonConfig,
  options: StartCollectorOptions = {},
): Promise<RunningCollector> {
  const logger = options.logger ?? createLogger();
  const evaluation = config.processors.evaluation;
  // Evaluator modules load before anything opens: a module that fails stops startup, naming its file.
  const registry = await loadEvaluatorRegistry({
    modules: evaluation.modules,
    builtIns: createBuiltInEvaluators({ judgeEnv: options.judgeEnv }),
    configuredIds: Object.keys(evaluation.evaluators),
  });
  // Without the evaluation processor in the traces pipeline, interactions are recorded, not evaluated.
  const evaluating = config.service.pipelines.traces?.processors.includes('evaluation') ?? false;
  const store = await openLedgerStore(evaluation.ledger, { logger });
  // Verdicts back into telemetry: events, evaluation spans, metrics (and forwarded spans).
  const telemetry = createTelemetryExporters(config, { logger, getInteraction: (id) => store.getInteraction(id) });
  const evaluationProcessor = createEvaluationProcessor({
    onRecorded: (record) => telemetry.verdicts.record(record),
    // LLM judges' model calls become spans on the exporters' provider, under their evaluation's span.
    ...(telemetry.tracerProvider ? { tracerProvider: telemetry.tracerProvider } : {}),
    store,
    config: { ...evaluation, evaluators: evaluating ? evaluation.evaluators : {} },
    registry,
    ...(options.clock ? { clock: options.clock } : {}),
    // Replicas share a PostgreSQL ledger's queue: each start is leased to this process.
    ...(evaluation.ledger.kind === 'postgres'
      ? { lease: { owner: leaseOwner(), durationMs: evaluation.leaseDurationMs } }
      : {}),
    logger,
  });
  const processor = createInteractionsProcessor({
    store,
    config: config.processors.interactions,
    next: evaluationProcessor,
    clock: options.clock,
    logger,
  });
  processor.onRecorded = (records) => telemetry.onInteractionsRecorded(records);
  telemetry.metrics.observe({
    spansReceived: () => processor.stats.spansReceived,
    tracesSplit: () => processor.stats.tracesSplit,
    pendingTraces: () => processor.assembler.pendingTraces(),
    pendingSpans: () => processor.assembler.pendingSpans(),
    evaluationQueueSize: () => store.countQueuedEvaluations(),
    evaluationsRunning: () => evaluationProcessor.runtime.stats.running,
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
    stops.push(() => store.close());
    // Stops run in reverse: telemetry flushes after the processors stop, before the store closes.
    // A replica id held by a live collector stops startup here, before any evaluation work.
    await store.claimReplica?.();
    await telemetry.start();
    stops.push(() => telemetry.shutdown());
    // Evaluations left queued by the previous run resume, and interactions recorded but not yet
    // taken in are, before the interactions processor replays its pending spans.
    await evaluationProcessor.start();
    stops.push(() => evaluationProcessor.shutdown());
    await processor.start();
    stops.push(() => processor.shutdown());

    let otlpAddress: RunningCollector['otlpAddress'];
    let otlpGrpcAddress: RunningCollector['otlpGrpcAddress'];
    const otlp = config.receivers.otlp;
    const tracesPipeline = config.service.pipelines.traces;
    if (otlp && tracesPipeline?.receivers.includes('otlp')) {
      const spansNext = telemetry.forwarder ? createForwardingConsumer(processor, telemetry.forwarder) : processor;
      const receiver = createOtlpReceiver(
        {
          host: otlp.http.host,
          port: otlp.http.port,
          maxRequestBodyBytes: otlp.http.maxRequestBodyBytes,
          bearerToken: otlp.http.bearerToken,
        },
        spansNext,
        { logger },
      );
      await receiver.start().catch((error: unknown) => {
        throw new CollectorStartError(
          `receivers::otlp::protocols::http::endpoint: cannot listen on ${otlp.http.host}:${otlp.http.port} (${errorText(error)})`,
          { cause: error },
        );
      });
      stops.push(() => receiver.shutdown());
      const bound = receiver.address();
      otlpAddress = bound;
      logger.info(`OTLP/HTTP receiver listening on http://${bound.host}:${bound.port}/v1/traces`);
      const grpc = otlp.grpc;
      if (grpc) {
        const grpcReceiver = createOtlpGrpcReceiver(grpc, spansNext, { logger });
        await grpcReceiver.start().catch((error: unknown) => {
          throw new CollectorStartError(
            `receivers::otlp::protocols::grpc::endpoint: cannot listen on ${grpc.host}:${grpc.port} (${errorText(error)})`,
            { cause: error },
          );
        });
        stops.push(() => grpcReceiver.shutdown());
        otlpGrpcAddress = grpcReceiver.address();
        logger.info(`OTLP/gRPC receiver listening on ${otlpGrpcAddress.host}:${otlpGrpcAddress.port}`);
      }
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
          evaluation: evaluationProcessor.stats,
        }),
      });
      await api.start().catch((error: unknown) => {
        throw new CollectorStartError(
          `extensions::api::endpoint: cannot listen on ${apiConfig.host}:${apiConfig.port} (${errorText(error)})`,
          { cause: error },
        );
      });
      stops.push(() => api.shutdown());
      const bound = api.address();
      apiAddress = bound;
      logger.info(`API listening on http://${bound.host}:${bound.port}`);
    }
    const prometheusAddress = telemetry.prometheusAddress();
    if (prometheusAddress)
      logger.info(`Prometheus metrics on http://${prometheusAddress.host}:${prometheusAddress.port}/metrics`);
    return {
      store,
      processor,
      evaluation: evaluationProcessor,
      registry,
      otlpAddress,
      otlpGrpcAddress,
      apiAddress,
      prometheusAddress,
      shutdown,
    };
  } catch (error) {
    await shutdown();
    throw error;
  }
}

function memoryMiB(): Record<string, number> {
  const usage = process.memoryUsage();
  const mib = (bytes: number) => Math.round(bytes / 1048576);
  return {
    rssMiB: mib(usage.rss),
    heapUsedMiB: mib(usage.heapUsed),
    heapTotalMiB: mib(usage.heapTotal),
    externalMiB: mib(usage.external),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Unique to this process: a restarted collector is a new owner, whose predecessor's leases expire. */
function leaseOwner(): string {
  return `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
}
