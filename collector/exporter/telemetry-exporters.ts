/**
 * The exporters stage, built from the configuration's `exporters` and `service.pipelines`:
 *
 * - traces pipeline → `otlphttp`: an `evaluate <evaluator-id>` span per outcome, a `chat <model>`
 *   span per LLM-judge model call (its child, made by the evaluation runtime on `tracerProvider`),
 *   and with `forward: true` the received spans as well;
 * - logs pipeline → `otlphttp`: a `gen_ai.evaluation.result` log event per outcome;
 * - metrics pipeline → `prometheus` (scrape endpoint) and/or `otlphttp` (pushed periodically).
 *
 * What no pipeline asks for is not built: no provider, no timer, no socket. The result is the
 * one object the service wires (see README.md): `verdicts.record` goes to the evaluation
 * processor's `onRecorded`, `onInteractionsRecorded` to the interactions processor's, `forwarder`
 * behind the receiver, `metrics.observe` to the running components.
 */
import { createNoopMeter, type TracerProvider } from '@opentelemetry/api';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import type { EvalonConfig, HostPort } from '../config/evalon-config.ts';
import type { Logger } from '../logger.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { createCollectorMetrics, type CollectorMetrics } from './collector-metrics.ts';
import { createEvaluationSpans, type EvaluationSpans } from './otlp/evaluation-spans.ts';
import { logExportFailures } from './otlp/export-failures.ts';
import {
  createOtlpLogExporter,
  createOtlpMetricExporter,
  createOtlpTraceExporter,
  LOGS_PATH,
  METRICS_PATH,
  TRACES_PATH,
  urlOf,
} from './otlp/otlp-http-exporters.ts';
import { createSpanForwarder, type SpanForwarder } from './otlp/span-forwarder.ts';
import { createVerdictEvents, SCOPE_NAME, type VerdictEvents } from './otlp/verdict-events.ts';
import { createPrometheusEndpoint, type PrometheusEndpoint } from './prometheus/prometheus-endpoint.ts';
import { createVerdictRecorder, type VerdictRecorder } from './verdict-recorder.ts';

export const DEFAULT_SERVICE_NAME = 'evalon-collector';
/** How often metrics are pushed over OTLP (Prometheus scrapes on its own schedule). */
export const DEFAULT_METRIC_EXPORT_INTERVAL_MS = 15_000;

export interface TelemetryExportersOptions {
  logger: Logger;
  /** Resource attributes of Evalon's own telemetry; `service.name` defaults to `evalon-collector`. */
  resource?: Record<string, string | number | boolean>;
  /** Reads an interaction from the ledger: the lag of outcomes whose interaction this process did not record. */
  getInteraction?(interactionId: string): Promise<Pick<InteractionRecord, 'endTime'> | undefined>;
  /** OTLP metrics push interval (tests shorten it). */
  metricExportIntervalMs?: number;
}

export interface TelemetryExporters {
  /** `EvaluationProcessorOptions.onRecorded`: `(record) => telemetry.verdicts.record(record)`. */
  readonly verdicts: VerdictRecorder;
  readonly metrics: CollectorMetrics;
  /** Present when the traces pipeline exports to `otlphttp` with `forward: true`. */
  readonly forwarder?: SpanForwarder;
  /**
   * The evaluation spans' provider, when the traces pipeline exports to `otlphttp`: give it to the
   * evaluation processor (`tracerProvider`), whose LLM judges' model calls become spans on it.
   */
  readonly tracerProvider?: TracerProvider;
  /** `InteractionsProcessor.onRecorded`: counts interactions and remembers their end for the lag. */
  onInteractionsRecorded(records: readonly InteractionRecord[]): void;
  /** Where the Prometheus endpoint listens, once started (absent when not configured). */
  prometheusAddress(): HostPort | undefined;
  /** Starts the Prometheus endpoint; everything else runs from creation. */
  start(): Promise<void>;
  /** Exports everything pending now: events, spans, forwarded spans, OTLP metrics. Never rejects. */
  flush(): Promise<void>;
  /** Flushes, then stops every exporter. Safe without start, safe twice. */
  shutdown(): Promise<void>;
}

export function createTelemetryExporters(config: EvalonConfig, options: TelemetryExportersOptions): TelemetryExporters {
  const { logger } = options;
  const pipelines = config.service.pipelines;
  const otlp = config.exporters.otlphttp;
  const uses = (exporters: readonly string[] | undefined, name: 'otlphttp' | 'prometheus') =>
    exporters?.includes(name) ?? false;
  const resource: Resource = resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME, ...options.resource });

  let events: VerdictEvents | undefined;
  let spans: EvaluationSpans | undefined;
  let forwarder: SpanForwarder | undefined;
  if (otlp && uses(pipelines.logs?.exporters, 'otlphttp')) {
    const exporter = logExportFailures(createOtlpLogExporter(otlp), 'verdict events', urlOf(otlp, LOGS_PATH), logger);
    events = createVerdictEvents({ exporter, resource });
  }
  if (otlp && uses(pipelines.traces?.exporters, 'otlphttp')) {
    const exporter = logExportFailures(
      createOtlpTraceExporter(otlp),
      'evaluation spans',
      urlOf(otlp, TRACES_PATH),
      logger,
    );
    spans = createEvaluationSpans({ exporter, resource });
    // The forwarder counts and reports its own failed exports.
    if (pipelines.traces?.forward) forwarder = createSpanForwarder({ exporter: createOtlpTraceExporter(otlp), logger });
  }

  const readers: IMetricReader[] = [];
  let prometheus: PrometheusEndpoint | undefined;
  if (config.exporters.prometheus && uses(pipelines.metrics?.exporters, 'prometheus')) {
    prometheus = createPrometheusEndpoint(config.exporters.prometheus, { logger });
    readers.push(prometheus.reader);
  }
  if (otlp && uses(pipelines.metrics?.exporters, 'otlphttp')) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: logExportFailures(createOtlpMetricExporter(otlp), 'metrics', urlOf(otlp, METRICS_PATH), logger),
        exportIntervalMillis: options.metricExportIntervalMs ?? DEFAULT_METRIC_EXPORT_INTERVAL_MS,
      }),
    );
  }
  const meterProvider = readers.length > 0 ? new MeterProvider({ resource, readers }) : undefined;
  const metrics = createCollectorMetrics(meterProvider ? meterProvider.getMeter(SCOPE_NAME) : createNoopMeter());
  const verdicts = createVerdictRecorder({
    ...(events ? { events } : {}),
    ...(spans ? { spans } : {}),
    metrics,
    measureLag: meterProvider !== undefined,
    ...(options.getInteraction ? { getInteraction: options.getInteraction } : {}),
    logger,
  });

  /** Never rejects: a failed export is already in the log (export-failures.ts). */
  async function flush(): Promise<void> {
    await verdicts.settled();
    await Promise.allSettled([
      events?.forceFlush(),
      spans?.forceFlush(),
      forwarder?.forceFlush(),
      meterProvider?.forceFlush(),
    ]);
  }

  let stopped: Promise<void> | undefined;
  return {
    verdicts,
    metrics,
    ...(forwarder ? { forwarder } : {}),
    ...(spans ? { tracerProvider: spans.tracerProvider } : {}),
    onInteractionsRecorded(records) {
      metrics.recordInteractions(records);
      verdicts.rememberInteractions(records);
    },
    prometheusAddress() {
      try {
        return prometheus?.address();
      } catch {
        return undefined;
      }
    },
    async start() {
      await prometheus?.start();
    },
    flush,
    shutdown() {
      stopped ??= (async () => {
        await verdicts.settled();
        // Each stops on its own: one failing export must not keep the others from flushing.
        const results = await Promise.allSettled([
          events?.shutdown(),
          spans?.shutdown(),
          forwarder?.shutdown(),
          meterProvider?.shutdown(),
          prometheus?.shutdown(),
        ]);
        for (const result of results)
          if (result.status === 'rejected') logger.warn(`exporters: shutdown: ${String(result.reason)}`);
      })();
      return stopped;
    },
  };
}
