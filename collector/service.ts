/**
 * The collector service: the one place that wires components. It builds each component with its
 * factory from the registry (`components.ts`), as the configuration and `service.pipelines` ask,
 * handing each its successor as `next` (receiver → interactions processor → evaluation processor
 * and the exporters, both over the ledger; the API beside them), and owns their lifecycle.
 */
import type { ComponentSettings } from './component.ts';
import { COMPONENTS } from './components.ts';
import type { ConfigLocator, EvalonConfig } from './config/index.ts';
import { secretsOf } from './config/secrets.ts';
import type { HostPort } from './config/values.ts';
import { createBuiltInEvaluators, type JudgeEnvironment } from './evaluators/index.ts';
import { createForwardingConsumer, createTelemetryExporters } from './exporter/index.ts';
import { openLedgerStore } from './ledger/open-store.ts';
import type { LedgerStore } from './ledger/store.ts';
import { TlsFileError } from './security/tls-files.ts';
import { createLogger, type Logger } from './logger.ts';
import type { Lifecycle } from './pipeline/consumer.ts';
import type { EvaluationProcessor } from './processor/evaluation/evaluation-processor.ts';
import type { EvaluatorRegistry } from './processor/evaluation/evaluator-registry.ts';
import { loadEvaluatorRegistry } from './processor/evaluation/load-evaluator-modules.ts';
import { agreementBody } from './api/agreement-body.ts';
import { createInteractionsFanOut } from './processor/interactions/fan-out.ts';
import type { InteractionsProcessor } from './processor/interactions/interactions-processor.ts';
import { prunes } from './retention/config.ts';
import { createLedgerPruner, type LedgerPruner } from './retention/pruner.ts';

import { CollectorStartError } from './component.ts';

export { CollectorStartError };

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
  /** Prunes the ledger in the background, when `processors.evaluation.ledger.retention` prunes anything. */
  readonly pruner?: LedgerPruner;
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
  /**
   * Where the configuration's values were written (`LoadedConfig.locate`): evaluator property
   * problems found at startup then name their file and line, not only their YAML path.
   */
  locateConfig?: ConfigLocator;
}

export async function startCollector(
  config: EvalonConfig,
  options: StartCollectorOptions = {},
): Promise<RunningCollector> {
  const logger = options.logger ?? createLogger({ ...config.service.telemetry.logs, secrets: secretsOf(config) });
  const settings: ComponentSettings & { clock?: () => number } = {
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  };
  const evaluation = config.processors.evaluation;
  // Evaluator modules load before anything opens: a module that fails, or a binding whose
  // properties its evaluator's schema refuses, stops startup, naming where it is.
  const registry = await loadEvaluatorRegistry({
    modules: evaluation.modules,
    builtIns: createBuiltInEvaluators({ judgeEnv: options.judgeEnv }),
    configuredIds: Object.keys(evaluation.evaluators),
    evaluators: evaluation.evaluators,
    ...(options.locateConfig ? { locate: options.locateConfig } : {}),
  });
  const store = await openLedgerStore(evaluation.ledger, { logger });

  // Started in this order, stopped in reverse: the store closes last, the telemetry flushes after
  // the processors stop, and nothing is received before the processors can take it.
  const stops: Array<() => Promise<void>> = [() => store.close()];
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
    // Components read their TLS files as they are built: one that cannot be used stops startup here.
    const { telemetry, interactionsProcessor, evaluationProcessor, otlp, api, pruner } = createComponents(
      config,
      settings,
      store,
      registry,
    );
    const start = async (component: Lifecycle) => {
      await component.start();
      stops.push(() => component.shutdown());
    };
    // A replica id held by a live collector stops startup here, before any evaluation work.
    await store.claimReplica?.();
    await start(telemetry);
    // Evaluations left queued by the previous run resume, and interactions recorded but not yet
    // taken in are, before the interactions processor replays its pending spans.
    await start(evaluationProcessor);
    await start(interactionsProcessor);
    if (otlp) await start(otlp);
    if (api) await start(api);
    // Last to start, first to stop: a pass in progress ends between two batches.
    if (pruner) await start(pruner);
    const prometheusAddress = telemetry.prometheusAddress();
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
      ...(pruner ? { pruner } : {}),
      shutdown,
    };
  } catch (error) {
    await shutdown();
    throw error instanceof TlsFileError ? new CollectorStartError(error.message, { cause: error }) : error;
  }
}

/** Builds every configured component, each handed its `next` (see the header). */
function createComponents(
  config: EvalonConfig,
  settings: ComponentSettings & { clock?: () => number },
  store: LedgerStore,
  registry: EvaluatorRegistry,
) {
  const { receivers, processors, extensions } = COMPONENTS;
  const { logger } = settings;
  const evaluation = config.processors.evaluation;
  const traces = config.service.pipelines.traces;
  const retention = evaluation.ledger.retention;
  const pruner = prunes(retention)
    ? createLedgerPruner({
        store,
        policy: retention,
        logger,
        ...(settings.clock ? { clock: settings.clock } : {}),
        // The ledger's review role answers whether a subject is under an open review.
        reviews: store,
      })
    : undefined;
  // The gauges and observed counters read the components built below, at each collection after startup.
  const telemetry = createTelemetryExporters(config, {
    logger,
    getInteraction: (id) => store.getInteraction(id),
    sources: {
      spansReceived: () => interactionsProcessor.stats.spansReceived,
      tracesSplit: () => interactionsProcessor.stats.tracesSplit,
      pendingTraces: () => interactionsProcessor.assembler.pendingTraces(),
      pendingSpans: () => interactionsProcessor.assembler.pendingSpans(),
      waitingTraces: () => interactionsProcessor.waiting.size,
      evictedTraces: () => interactionsProcessor.assembler.stats.evictedTraces,
      lateSpans: () => interactionsProcessor.stats.lateSpans,
      refusedSpans: () => otlp?.refusedSpans() ?? [],
      evaluationQueueSize: () => store.countQueuedEvaluations(),
      evaluationsRunning: () => evaluationProcessor.runtime.stats.running,
      agreement: () => evaluationProcessor.agreement.report(),
      judgeCircuits: () => evaluationProcessor.runtime.judgeCircuits(),
      ledgerSize: () => store.measureLedgerSize(),
      ledgerPruned: () => pruner?.pruned() ?? [],
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
  // The receiver and the API read their TLS files as they are built: one gone since the
  // configuration was loaded stops startup, leaving no exporter timers or sockets behind.
  let otlp: ReturnType<typeof receivers.otlp.create> | undefined;
  let api: ReturnType<typeof extensions.api.create> | undefined;
  try {
    otlp =
      config.receivers.otlp && traces?.receivers.includes(receivers.otlp.type)
        ? receivers.otlp.create(settings, config.receivers.otlp, spans)
        : undefined;
    api =
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
              // A reviewer's verdict resumes its evaluation here at once.
              wakeEvaluations: () => evaluationProcessor.runtime.wake(),
              agreement: () => agreementBody(evaluationProcessor.agreement.report()),
              stats: () => ({
                ...interactionsProcessor.stats,
                pendingTraces: interactionsProcessor.assembler.pendingTraces(),
                pendingSpans: interactionsProcessor.assembler.pendingSpans(),
                waitingTraces: interactionsProcessor.waiting.size,
                waitingSpans: interactionsProcessor.waiting.spans,
                duplicateSpans: interactionsProcessor.assembler.stats.duplicateSpans,
                unassignedSpans: interactionsProcessor.assembler.stats.unassignedSpans,
                completed: interactionsProcessor.assembler.stats.completed,
                conversations: { ...interactionsProcessor.conversations.stats },
                ...(otlp ? { refusedSpans: otlp.refusedSpans() } : {}),
                memory: memoryMiB(),
                evaluation: evaluationProcessor.stats,
              }),
            },
            config.extensions.api,
          )
        : undefined;
  } catch (error) {
    void telemetry.shutdown(); // never rejects
    throw error;
  }
  return { telemetry, interactionsProcessor, evaluationProcessor, otlp, api, pruner };
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
