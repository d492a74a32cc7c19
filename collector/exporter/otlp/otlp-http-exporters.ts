/**
 * The OpenTelemetry JS OTLP/HTTP exporters, configured from `exporters.otlphttp`: one per signal,
 * each posting to `<endpoint>/v1/<signal>`. They speak OTLP/JSON, which every OTLP/HTTP server
 * accepts beside protobuf (the specification's SHOULD; the OpenTelemetry Collector, Tempo, Loki,
 * Alloy and Jaeger all do), with the configured headers, gzip, timeout and TLS. They retry 429/502/
 * 503/504 with backoff and run with tracing suppressed, so exporting never traces itself.
 *
 * TLS files are read when the exporter is created (at startup); `tls.ca_file` replaces the system's
 * CAs for this exporter, as the OpenTelemetry Collector's `ca_file` does.
 */
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { ClientTlsOptions } from '../../security/tls-files.ts';
import type { OtlpHttpExporterConfig } from './config.ts';
import { createDoubleScoreLogExporter, createDoubleScoreTraceExporter } from './double-scores.ts';

export const TRACES_PATH = '/v1/traces';
export const LOGS_PATH = '/v1/logs';
export const METRICS_PATH = '/v1/metrics';

export function urlOf(config: OtlpHttpExporterConfig, path: string): string {
  return `${config.endpoint.replace(/\/+$/, '')}${path}`;
}

/** `tls`: the exporter's TLS files as read at startup (factory.ts), for an https:// endpoint. */
function optionsFor(config: OtlpHttpExporterConfig, path: string, tls: ClientTlsOptions | undefined) {
  return {
    ...(tls ? { httpAgentOptions: { keepAlive: true, ...tls } } : {}),
    url: urlOf(config, path),
    headers: { ...config.headers },
    // The exporters type this as their own string enum; the values are the same words.
    compression: config.compression as never,
    timeoutMillis: config.timeoutMs,
  };
}

/** Forwarded spans: the received spans as they are. */
export function createOtlpTraceExporter(config: OtlpHttpExporterConfig, tls?: ClientTlsOptions): OTLPTraceExporter {
  return new OTLPTraceExporter(optionsFor(config, TRACES_PATH, tls));
}

/** Evaluation spans (and judge calls): scores as doubles (double-scores.ts). */
export function createOtlpEvaluationSpanExporter(config: OtlpHttpExporterConfig, tls?: ClientTlsOptions): SpanExporter {
  return createDoubleScoreTraceExporter(optionsFor(config, TRACES_PATH, tls));
}

/** Verdict events: scores as doubles (double-scores.ts). */
export function createOtlpLogExporter(config: OtlpHttpExporterConfig, tls?: ClientTlsOptions): LogRecordExporter {
  return createDoubleScoreLogExporter(optionsFor(config, LOGS_PATH, tls));
}

/** Cumulative temporality, as Prometheus and most backends expect. */
export function createOtlpMetricExporter(config: OtlpHttpExporterConfig, tls?: ClientTlsOptions) {
  return new OTLPMetricExporter(optionsFor(config, METRICS_PATH, tls));
}
