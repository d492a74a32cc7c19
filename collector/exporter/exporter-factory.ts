/**
 * What an exporter factory is given and builds. An exporter is created once per id a pipeline
 * lists (`otlphttp/tempo`), told which signals it carries (`ExporterUse`, from
 * `service.pipelines`), and yields the parts the exporters stage (`telemetry-exporters.ts`)
 * assembles: exporters of verdict events and evaluation spans (each gets every event and span of
 * the pipelines that list it), the span forwarder, a metric reader, a scrape endpoint, and its
 * failed exports by signal.
 */
import type { Resource } from '@opentelemetry/resources';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { IMetricReader } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { ComponentFactory, ComponentSettings } from '../component.ts';
import type { HostPort } from '../config/values.ts';
import type { SpanForwarder } from './otlp/span-forwarder.ts';

export type Signal = 'traces' | 'logs' | 'metrics';

/** Failed exports so far, by signal (the `evalon.exporter.failures` counter reads them). */
export type ExportFailureCounts = Partial<Record<Signal, number>>;

export interface ExporterSettings extends ComponentSettings {
  /** The exporter's id as written under `exporters` (`otlphttp`, `otlphttp/tempo`). */
  id: string;
  /** The resource of Evalon's own telemetry (`service.name` …). */
  resource: Resource;
  /** How often metrics are pushed (a pulled exporter ignores it). */
  metricExportIntervalMs: number;
}

/** Which pipelines list the exporter. */
export interface ExporterUse {
  /** The traces pipeline; `forward`: also send the received spans. */
  traces?: { forward: boolean };
  logs: boolean;
  metrics: boolean;
}

export interface ExporterParts {
  /** Where verdict log events go (logs pipeline). */
  logExporter?: LogRecordExporter;
  /** Where evaluation spans and judge call spans go (traces pipeline). */
  spanExporter?: SpanExporter;
  /** The received spans, forwarded (traces pipeline with `forward: true`). */
  forwarder?: SpanForwarder;
  /** Collects the collector's metrics (metrics pipeline). */
  metricReader?: IMetricReader;
  /** A server metrics are pulled from; started with the exporters. */
  scrapeEndpoint?: { start(): Promise<void>; shutdown(): Promise<void>; address(): HostPort };
  /** Failed exports so far, by signal: a live object, read at each metrics collection. */
  failures?: Readonly<ExportFailureCounts>;
}

export interface ExporterFactory<Config>
  extends ComponentFactory<Config, ExporterSettings, ExporterParts, ExporterUse> {
  readonly kind: 'exporter';
  /** The signals it can carry; a pipeline of another signal listing it is a configuration problem. */
  readonly signals: readonly Signal[];
}
