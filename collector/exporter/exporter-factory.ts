/**
 * What an exporter factory is given and builds. An exporter is created only when a pipeline lists
 * it, told which signals it carries (`ExporterUse`, from `service.pipelines`), and yields the parts
 * the exporters stage (`telemetry-exporters.ts`) assembles: sinks for verdict events and evaluation
 * spans, the span forwarder, a metric reader, a scrape endpoint.
 */
import type { Resource } from '@opentelemetry/resources';
import type { IMetricReader } from '@opentelemetry/sdk-metrics';
import type { ComponentFactory, ComponentSettings } from '../component.ts';
import type { HostPort } from '../config/values.ts';
import type { EvaluationSpans } from './otlp/evaluation-spans.ts';
import type { SpanForwarder } from './otlp/span-forwarder.ts';
import type { VerdictEvents } from './otlp/verdict-events.ts';

export type Signal = 'traces' | 'logs' | 'metrics';

export interface ExporterSettings extends ComponentSettings {
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
  /** Verdict log events (logs pipeline). */
  events?: VerdictEvents;
  /** Evaluation spans and judge call spans (traces pipeline). */
  spans?: EvaluationSpans;
  /** The received spans, forwarded (traces pipeline with `forward: true`). */
  forwarder?: SpanForwarder;
  /** Collects the collector's metrics (metrics pipeline). */
  metricReader?: IMetricReader;
  /** A server metrics are pulled from; started with the exporters. */
  scrapeEndpoint?: { start(): Promise<void>; shutdown(): Promise<void>; address(): HostPort };
}

export interface ExporterFactory<Config>
  extends ComponentFactory<Config, ExporterSettings, ExporterParts, ExporterUse> {
  readonly kind: 'exporter';
  /** The signals it can carry; a pipeline of another signal listing it is a configuration problem. */
  readonly signals: readonly Signal[];
}
