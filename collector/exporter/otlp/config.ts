/**
 * `exporters.otlphttp`: verdict logs, evaluation spans, metrics and forwarded spans over OTLP/HTTP.
 */
import * as z from 'zod';
import { emptyAsMapping, section, whenRead } from '../../config/schema-kit.ts';
import { duration, text, urlEndpoint } from '../../config/values.ts';
import { clientTlsSchema, type ClientTlsConfig } from '../../security/tls-config.ts';

export const DEFAULT_OTLP_HTTP_COMPRESSION = 'gzip';
/** As the OpenTelemetry JS exporters. */
export const DEFAULT_OTLP_HTTP_TIMEOUT_MS = 10_000;

/** `exporters.otlphttp`, normalised. */
export interface OtlpHttpExporterConfig {
  /** Base URL without a trailing slash; the signal paths (`/v1/traces` …) are appended. */
  endpoint: string;
  headers: Record<string, string>;
  compression: 'gzip' | 'none';
  timeoutMs: number;
  /** `tls`: the CAs to trust, a client certificate; only with an `https://` endpoint. */
  tls?: ClientTlsConfig;
}

/** Header values are text; a number written bare is taken as its text. */
const headerValue = text();

export const otlpHttpExporterSchema = section({
  endpoint: urlEndpoint(),
  headers: emptyAsMapping(z.record(z.string(), headerValue)),
  compression: z.enum(['gzip', 'none']).default(DEFAULT_OTLP_HTTP_COMPRESSION),
  timeout: duration({ positive: true }).default(DEFAULT_OTLP_HTTP_TIMEOUT_MS),
  tls: clientTlsSchema.optional(),
})
  .superRefine((exporter, context) => {
    if (exporter.tls !== undefined && !exporter.endpoint.startsWith('https:')) {
      context.addIssue({
        code: 'custom',
        path: ['tls'],
        message: `applies to an https:// endpoint only (endpoint is ${exporter.endpoint})`,
      });
    }
  }, whenRead('endpoint'))
  .transform(
    (exporter): OtlpHttpExporterConfig => ({
      endpoint: exporter.endpoint,
      headers: exporter.headers,
      compression: exporter.compression,
      timeoutMs: exporter.timeout,
      ...(exporter.tls !== undefined ? { tls: exporter.tls } : {}),
    }),
  );
