/**
 * `exporters.otlphttp` (verdict logs, evaluation spans, metrics, forwarded spans over OTLP/HTTP)
 * and `exporters.prometheus` (a scrape endpoint for the metrics).
 */
import * as z from 'zod';
import type { HostPort, OtlpHttpExporterConfig } from '../evalon-config.ts';
import { emptyAsMapping, section } from '../schema-kit.ts';
import { duration, listenEndpoint, text, urlEndpoint } from '../values.ts';

export const DEFAULT_OTLP_HTTP_COMPRESSION = 'gzip';
/** As the OpenTelemetry JS exporters. */
export const DEFAULT_OTLP_HTTP_TIMEOUT_MS = 10_000;
export const DEFAULT_PROMETHEUS_HOST = '127.0.0.1';
export const DEFAULT_PROMETHEUS_PORT = 9464;

/** Header values are text; a number written bare is taken as its text. */
const headerValue = text();

export const otlpHttpExporterSchema = section({
  endpoint: urlEndpoint(),
  headers: emptyAsMapping(z.record(z.string(), headerValue)),
  compression: z.enum(['gzip', 'none']).default(DEFAULT_OTLP_HTTP_COMPRESSION),
  timeout: duration({ positive: true }).default(DEFAULT_OTLP_HTTP_TIMEOUT_MS),
}).transform(
  (exporter): OtlpHttpExporterConfig => ({
    endpoint: exporter.endpoint,
    headers: exporter.headers,
    compression: exporter.compression,
    timeoutMs: exporter.timeout,
  }),
);

export const prometheusExporterSchema = section({
  endpoint: listenEndpoint({ allowScheme: true }).default({
    host: DEFAULT_PROMETHEUS_HOST,
    port: DEFAULT_PROMETHEUS_PORT,
  }),
}).transform((exporter): HostPort => exporter.endpoint);
