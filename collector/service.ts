/**
 * The collector service: the one place that wires components. It builds each component with its
 * factory from the registry (`components.ts`), as the configuration and `service.pipelines` ask,
 * handing each its successor as `next` (receiver → interactions processor → evaluation processor
 * and the exporters, both over the ledger; the API beside them), and owns their lifecycle.
 */
import type { ComponentSettings } from './component.ts';
import { COMPONENTS } from './components.ts';
import type { EvalonConfig } from './config/index.ts';
import type { HostPort } from './config/values.ts';
import { createBuiltInEvaluators, type JudgeEnvironment } from './evaluators/index.ts';
import { createForwardingConsumer, createTelemetryExporters } from './exporter/index.ts';
import { openLedgerStore } from './ledger/open-store.ts';
import type { LedgerStore } from './ledger/store.ts';
import { createLogger, type Logger } from './logger.ts';
import type { Lifecycle } from './pipeline/consumer.ts';
import type { EvaluationProcessor } from './processor/evaluation/evaluation-processor.ts';
import type { EvaluatorRegistry } from './processor/evaluation/evaluator-registry.ts';
import { loadEvaluatorRegistry } from './processor/evaluation/load-evaluator-modules.ts';
import { createInteractionsFanOut } from './processor/interactions/fan-out.ts';
import type { InteractionsProcessor } from './processor/interactions/interactions-processor.ts';

export { CollectorStartError } from './component.ts';

export interface RunningCollector {
  readonly store: LedgerStore;
  readonly processor: InteractionsProcessor;
  /** Triggers and runs the evaluations bound to each new interaction. */
  readonly evaluation: EvaluationProcessor;
  /** The evaluators this collector can run: built-ins and those of `processors.evaluation.modules`. */
  readonly registry: EvaluatorRegistry;
  /** Where the OTLP receiver listens, when it is configured. */
  readonly otlpAddress?: HostPort;
  /** Where the OTLP/gRPC receiver listens, when `receivers.otlp.protocols.grpc` is configured. */
  readonly otlpGrpcAddress?: HostPort;
  /** Where the API listens, when it is configured. */
  readonly apiAddress?: HostPort;
  /** Where the Prometheus scrape endpoint listens, when it is configured. */
  readonly prometheusAddress?: HostPort;
  /** Stops accepting spans, finishes in-flight work, closes the store. Safe twice. */
  shutdown(): Promise<void>;
}

export interface StartCollectorOptions {
  logger?: Logger;
  clock?: () => number;
  /**
   * Where the built-in LLM judges read their model settings, by evaluator id (default
   * `process.env`; the test kit's scripted models).
   */
  judgeEnv?: JudgeEnvironment;
}

export async function startCollector(
  config: EvalonConfig,
  options: StartCollectorOptions = {},
): Promise<RunningCollector> {
  const logger = options.logger ?? createLogger();
  const settings: ComponentSettings & { clock?: () => number } = {
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  };
  const { receivers, processors, extensions } = COMPONENTS;
  const evaluation = config.processors.evaluation;
  const traces = config.service.pipelines.traces;
  // Evaluator modules load before anything opens: a module that fails stops startup, naming its file.
  const registry = await loadEvaluatorRegistry({
    modules: evaluation.modules,
    builtIns: createBuiltInEvaluators({ judgeEnv: options.judgeEnv }),
    configuredIds: Object.keys(evaluation.evaluators),
    evaluators: evaluation.evaluators,
  });
  const store = await openLedgerStore(evaluation.ledger, { logger });

  // The gauges read the processors built below; they are read at each collection, after startup.
  const telemetry = createTelemetryExporters(config, {
    logger,
    getInteraction: (id) => store.getInteraction(id),
    sources: {
      spansReceived: () => interactionsProcessor.stats.spansReceived,
      tracesSplit: () => interactionsProcessor.stats.tracesSplit,
      pendingTraces: () => interactionsProcessor.assembler.pendingTraces(),
      pendingSpans: () => interactionsProcessor.assembler.pendingSpans(),
      evaluationQueueSize: () => store.countQueuedEvaluations(),
      evaluationsRunning: () => evaluationProcessor.runtime.stats.running,
    },
  });
  // Without the evaluation processor in the traces pipeline, interactions are recorded, not evaluated;
  // it still takes them in, so its intake mark stays current for a later run that evaluates.
  const evaluating = traces?.processors.includes(processors.evaluation.type) ?? false;
  const evaluationProcessor = processors.evaluation.create(
    // LLM judges' model calls become spans on the exporters' provider, under their evaluation's span.
    { ...settings, store, registry, ...(telemetry.tracerProvider ? { tracerProvider: telemetry.tracerProvider } : {}) },
    evaluating ? evaluation : { ...evaluation, evaluators: {} },
    telemetry.verdicts,
  );
  const interactionsProcessor = processors.interactions.create(
    { ...settings, store },
    config.processors.interactions,
    createInteractionsFanOut([
      { consumeInteractions: async (records) => telemetry.onInteractionsRecorded(records) },
      evaluationProcessor,
    ]),
  );
  // With `forward: true` the received spans go on to the exporters once the processor stored them.
  const spans = telemetry.forwarder
    ? createForwardingConsumer(interactionsProcessor, telemetry.forwarder)
    : interactionsProcessor;
  const otlp =
    config.receivers.otlp && traces?.receivers.includes(receivers.otlp.type)
      ? receivers.otlp.create(settings, config.receivers.otlp, spans)
      : undefined;
  const api =
    config.extensions.api && config.service.extensions.includes(extensions.api.type)
      ? extensions.api.create(
          {
            ...settings,
            store,
            // Turns on their way when an end is requested arrive within the settle window.
            conversationEndGraceMs: config.processors.interactions.settleMs,
            ready: () =>
              interactionsProcessor.ready()
                ? true
                : { ready: false, reason: 'recovering pending spans or shutting down' },
            stats: () => ({
              ...interactionsProcessor.stats,
              pendingTraces: interactionsProcessor.assembler.pendingTraces(),
              pendingSpans: interactionsProcessor.assembler.pendingSpans(),
              duplicateSpans: interactionsProcessor.assembler.stats.duplicateSpans,
              unassignedSpans: interactionsProcessor.assembler.stats.unassignedSpans,
              completed: interactionsProcessor.assembler.stats.completed,
              conversations: { ...interactionsProcessor.conversations.stats },
              memory: memoryMiB(),
              evaluation: evaluationProcessor.stats,
            }),
          },
          config.extensions.api,
        )
      : undefined;

  // Started in this order, stopped in reverse: the store closes last, the telemetry flushes after
  // the processors stop, and nothing is received before the processors can take it.
  const stops: Array<() => Promise<void>> = [];
  const start = async (component: Lifecycle) => {
    await component.start();
    stops.push(() => component.shutdown());
  };
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
    // A replica id held by a live collector stops startup here, before any evaluation work.
    await store.claimReplica?.();
    await start(telemetry);
    // Evaluations left queued by the previous run resume, and interactions recorded but not yet
    // taken in are, before the interactions processor replays its pending spans.
    await start(evaluationProcessor);
    await start(interactionsProcessor);
    if (otlp) await start(otlp);
    if (api) await start(api);
    const prometheusAddress = telemetry.prometheusAddress();
    if (prometheusAddress)
      logger.info(`Prometheus metrics on http://${prometheusAddress.host}:${prometheusAddress.port}/metrics`);
    const otlpAddresses = otlp?.addresses();
    return {
      store,
      processor: interactionsProcessor,
      evaluation: evaluationProcessor,
      registry,
      otlpAddress: otlpAddresses?.http,
      otlpGrpcAddress: otlpAddresses?.grpc,
      apiAddress: api?.address(),
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
