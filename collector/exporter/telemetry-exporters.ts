/**
 * The exporters stage, built from the configuration's `exporters` and `service.pipelines`: each
 * exporter a pipeline lists is created by its factory (`exporter-factories.ts`) for the signals
 * that list it, and the parts are assembled here:
 *
 * - traces pipeline → `otlphttp`: an `evaluate <evaluator-id>` span per outcome, a `chat <model>`
 *   span per LLM-judge model call (its child, made by the evaluation runtime on `tracerProvider`),
 *   and with `forward: true` the received spans as well;
 * - logs pipeline → `otlphttp`: a `gen_ai.evaluation.result` log event per outcome;
 * - metrics pipeline → `prometheus` (scrape endpoint) and/or `otlphttp` (pushed periodically).
 *
 * What no pipeline asks for is not built: no provider, no timer, no socket. The result is the
 * one object the service wires (see README.md): `verdicts` is the evaluation processor's `next`,
 * `onInteractionsRecorded` is handed the interactions processor's new interactions, `forwarder`
 * sits behind the receiver, and the gauges read the `sources` given here.
 */
import { createNoopMeter, type TracerProvider } from '@opentelemetry/api';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider, type IMetricReader } from '@opentelemetry/sdk-metrics';
import type { EvalonConfig } from '../config/evalon-config.ts';
import type { HostPort } from '../config/values.ts';
import type { Logger } from '../logger.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { SERVICE_NAME } from '../../src/model/attributes.ts';
import { COLLECTOR_SCOPE } from '../../src/model/telemetry-names.ts';
import { createCollectorMetrics, type CollectorMetricSources, type CollectorMetrics } from './collector-metrics.ts';
import { componentTypeOf } from '../config/component-id.ts';
import { EXPORTER_FACTORIES } from './exporter-factories.ts';
import type { ExporterFactory, ExporterParts, ExporterSettings, ExporterUse } from './exporter-factory.ts';
import { createEvaluationSpans } from './otlp/evaluation-spans.ts';
import { combineForwarders, type SpanForwarder } from './otlp/span-forwarder.ts';
import { createVerdictEvents } from './otlp/verdict-events.ts';
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
  /** What the gauges and the spans counter read from the running components (read at each collection). */
  sources?: CollectorMetricSources;
  /** OTLP metrics push interval (tests shorten it). */
  metricExportIntervalMs?: number;
}

export interface TelemetryExporters {
  /** The evaluation processor's `next`: each recorded outcome becomes an event, a span and metrics. */
  readonly verdicts: VerdictRecorder;
  readonly metrics: CollectorMetrics;
  /** Present when the traces pipeline exports to `otlphttp` with `forward: true`. */
  readonly forwarder?: SpanForwarder;
  /**
   * The evaluation spans' provider, when the traces pipeline exports to `otlphttp`: give it to the
   * evaluation processor (`tracerProvider`), whose LLM judges' model calls become spans on it.
   */
  readonly tracerProvider?: TracerProvider;
  /** Given the interactions new to the ledger: counts them and remembers their end for the lag. */
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

export function createTelemetryExporters(
  config: Pick<EvalonConfig, 'exporters' | 'service'>,
  options: TelemetryExportersOptions,
): TelemetryExporters {
  const { logger } = options;
  const resource: Resource = resourceFromAttributes({ [SERVICE_NAME]: DEFAULT_SERVICE_NAME, ...options.resource });
  const settings: Omit<ExporterSettings, 'id'> = {
    logger,
    resource,
    metricExportIntervalMs: options.metricExportIntervalMs ?? DEFAULT_METRIC_EXPORT_INTERVAL_MS,
  };
  // One exporter per id a pipeline lists (`otlphttp`, `otlphttp/tempo`): each gets every event,
  // span and metric of the pipelines that list it, through its own batch processor or reader.
  const built: Array<{ id: string; parts: ExporterParts }> = [];
  for (const [id, exporterConfig] of Object.entries(config.exporters)) {
    // The entry was produced by its type's schema, so it is that factory's config.
    const factory = (EXPORTER_FACTORIES as Record<string, ExporterFactory<unknown>>)[componentTypeOf(id) ?? ''];
    const use = exporterUse(id, config.service.pipelines);
    if (factory && use) built.push({ id, parts: factory.create({ ...settings, id }, exporterConfig, use) });
  }
  const each = <Part>(pick: (parts: ExporterParts) => Part | undefined): Part[] =>
    built.flatMap(({ parts }) => {
      const part = pick(parts);
      return part === undefined ? [] : [part];
    });
  const logExporters = each((parts) => parts.logExporter);
  const spanExporters = each((parts) => parts.spanExporter);
  const events = logExporters.length > 0 ? createVerdictEvents({ exporters: logExporters, resource }) : undefined;
  const spans = spanExporters.length > 0 ? createEvaluationSpans({ exporters: spanExporters, resource }) : undefined;
  const forwarder = combineForwarders(each((parts) => parts.forwarder));
  const scrapeEndpoints = each((parts) => parts.scrapeEndpoint);
  const readers: IMetricReader[] = each((parts) => parts.metricReader);
  const exportFailures = () =>
    built.flatMap(({ id, parts }) =>
      Object.entries(parts.failures ?? {}).map(([signal, count]) => ({ exporter: id, signal, count })),
    );

  const meterProvider = readers.length > 0 ? new MeterProvider({ resource, readers }) : undefined;
  const metrics = createCollectorMetrics(meterProvider ? meterProvider.getMeter(COLLECTOR_SCOPE) : createNoopMeter(), {
    ...options.sources,
    exportFailures,
  });
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
        return scrapeEndpoints[0]?.address();
      } catch {
        return undefined;
      }
    },
    async start() {
      for (const endpoint of scrapeEndpoints) await endpoint.start();
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
          ...scrapeEndpoints.map((endpoint) => endpoint.shutdown()),
        ]);
        for (const result of results)
          if (result.status === 'rejected') logger.warn(`exporters: shutdown: ${String(result.reason)}`);
      })();
      return stopped;
    },
  };
}

/** The pipelines that list exporter `id`; undefined when none does (the exporter is not built). */
function exporterUse(id: string, pipelines: EvalonConfig['service']['pipelines']): ExporterUse | undefined {
  const lists = (pipeline: { exporters: string[] } | undefined) => pipeline?.exporters.includes(id) ?? false;
  const use: ExporterUse = {
    ...(pipelines.traces && lists(pipelines.traces) ? { traces: { forward: pipelines.traces.forward } } : {}),
    logs: lists(pipelines.logs),
    metrics: lists(pipelines.metrics),
  };
  return use.traces || use.logs || use.metrics ? use : undefined;
}
