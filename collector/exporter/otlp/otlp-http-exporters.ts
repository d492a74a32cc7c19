/**
 * The OpenTelemetry JS OTLP/HTTP exporters, configured from `exporters.otlphttp`: one per signal,
 * each posting to `<endpoint>/v1/<signal>`. They speak OTLP/JSON, which every OTLP/HTTP server
 * accepts beside protobuf (the specification's SHOULD; the OpenTelemetry Collector, Tempo, Loki,
 * Alloy and Jaeger all do), with the configured headers, gzip and timeout. They retry 429/502/
 * 503/504 with backoff and run with tracing suppressed, so exporting never traces itself.
 */
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { OtlpHttpExporterConfig } from './config.ts';
import { createDoubleScoreLogExporter, createDoubleScoreTraceExporter } from './double-scores.ts';

export const TRACES_PATH = '/v1/traces';
export const LOGS_PATH = '/v1/logs';
export const METRICS_PATH = '/v1/metrics';

export function urlOf(config: OtlpHttpExporterConfig, path: string): string {
  return `${config.endpoint.replace(/\/+$/, '')}${path}`;
}

function optionsFor(config: OtlpHttpExporterConfig, path: string) {
  return {
    url: urlOf(config, path),
    headers: { ...config.headers },
    // The exporters type this as their own string enum; the values are the same words.
    compression: config.compression as never,
    timeoutMillis: config.timeoutMs,
  };
}

/** Forwarded spans: the received spans as they are. */
export function createOtlpTraceExporter(config: OtlpHttpExporterConfig): OTLPTraceExporter {
  return new OTLPTraceExporter(optionsFor(config, TRACES_PATH));
}

/** Evaluation spans (and judge calls): scores as doubles (double-scores.ts). */
export function createOtlpEvaluationSpanExporter(config: OtlpHttpExporterConfig): SpanExporter {
  return createDoubleScoreTraceExporter(optionsFor(config, TRACES_PATH));
}

/** Verdict events: scores as doubles (double-scores.ts). */
export function createOtlpLogExporter(config: OtlpHttpExporterConfig): LogRecordExporter {
  return createDoubleScoreLogExporter(optionsFor(config, LOGS_PATH));
}

/** Cumulative temporality, as Prometheus and most backends expect. */
export function createOtlpMetricExporter(config: OtlpHttpExporterConfig): OTLPMetricExporter {
  return new OTLPMetricExporter(optionsFor(config, METRICS_PATH));
}
