/**
 * The exporters wired into a real collector pipeline the way collector/service.ts wires them (the
 * snippet in collector/exporter/README.md): OTLP receiver → (forwarding) → interactions processor
 * → evaluation processor over a SQLite ledger with the built-in evaluators, verdicts going back
 * out. The test holds the components, so it can flush the exporters and read their stats.
 */
import type { EvalonConfig } from '../../collector/config/index.ts';
import { BUILT_IN_EVALUATORS } from '../../collector/evaluators/index.ts';
import {
  createForwardingConsumer,
  createTelemetryExporters,
  type TelemetryExporters,
} from '../../collector/exporter/index.ts';
import { createSqliteStore } from '../../collector/ledger/sqlite/sqlite-store.ts';
import type { LedgerStore } from '../../collector/ledger/store.ts';
import { silentLogger } from '../../collector/logger.ts';
import {
  createEvaluationProcessor,
  type EvaluationProcessor,
} from '../../collector/processor/evaluation/evaluation-processor.ts';
import { loadEvaluatorRegistry } from '../../collector/processor/evaluation/load-evaluator-modules.ts';
import { createInteractionsFanOut } from '../../collector/processor/interactions/fan-out.ts';
import {
  createInteractionsProcessor,
  type InteractionsProcessor,
} from '../../collector/processor/interactions/interactions-processor.ts';
import { createOtlpReceiver } from '../../collector/receiver/otlp/index.ts';

export interface Wired {
  telemetry: TelemetryExporters;
  store: LedgerStore;
  processor: InteractionsProcessor;
  evaluation: EvaluationProcessor;
  otlpUrl: string;
  shutdown(): Promise<void>;
}

export async function startWired(config: EvalonConfig): Promise<Wired> {
  const logger = silentLogger;
  const evaluationConfig = config.processors.evaluation;
  if (evaluationConfig.ledger.kind !== 'sqlite') throw new Error('sqlite only');
  const registry = await loadEvaluatorRegistry({
    modules: evaluationConfig.modules,
    builtIns: BUILT_IN_EVALUATORS,
    configuredIds: Object.keys(evaluationConfig.evaluators),
  });
  const store = createSqliteStore({ path: evaluationConfig.ledger.path });
  const telemetry = createTelemetryExporters(config, {
    logger,
    getInteraction: (id) => store.getInteraction(id),
    sources: {
      spansReceived: () => processor.stats.spansReceived,
      pendingTraces: () => processor.assembler.pendingTraces(),
      pendingSpans: () => processor.assembler.pendingSpans(),
      evaluationQueueSize: () => store.countQueuedEvaluations(),
      evaluationsRunning: () => evaluation.runtime.stats.running,
    },
  });
  const evaluation = createEvaluationProcessor({
    store,
    config: evaluationConfig,
    registry,
    logger,
    onRecorded: (record) => telemetry.verdicts.record(record),
    ...(telemetry.tracerProvider ? { tracerProvider: telemetry.tracerProvider } : {}),
  });
  const processor = createInteractionsProcessor({
    store,
    config: config.processors.interactions,
    next: createInteractionsFanOut([
      { consumeInteractions: async (records) => telemetry.onInteractionsRecorded(records) },
      evaluation,
    ]),
    logger,
  });
  await telemetry.start();
  await evaluation.start();
  await processor.start();
  const http = config.receivers.otlp!.http;
  const consumer = telemetry.forwarder ? createForwardingConsumer(processor, telemetry.forwarder) : processor;
  const receiver = createOtlpReceiver(
    { host: http.host, port: http.port, maxRequestBodyBytes: http.maxRequestBodyBytes },
    consumer,
    { logger },
  );
  await receiver.start();
  const { host, port } = receiver.address();
  return {
    telemetry,
    store,
    processor,
    evaluation,
    otlpUrl: `http://${host}:${port}/v1/traces`,
    async shutdown() {
      await receiver.shutdown();
      await processor.shutdown();
      await evaluation.shutdown();
      // After the evaluation processor: its last outcomes are still exported.
      await telemetry.shutdown();
      await store.close();
    },
  };
}
