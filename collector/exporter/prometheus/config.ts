/**
 * `exporters.prometheus` (and each `prometheus/<name>`): a scrape endpoint for the collector's
 * metrics, over HTTPS with `tls` (mutual TLS with `tls.client_ca_file`).
 */
import { section } from '../../config/schema-kit.ts';
import { listenEndpoint, type HostPort } from '../../config/values.ts';
import { serverTlsSchema, type ServerTlsConfig } from '../../security/tls-config.ts';

export const DEFAULT_PROMETHEUS_HOST = '127.0.0.1';
export const DEFAULT_PROMETHEUS_PORT = 9464;

/** `exporters.prometheus`, normalised: where the scrape endpoint listens, and its TLS. */
export interface PrometheusExporterConfig extends HostPort {
  tls?: ServerTlsConfig;
}

export const prometheusExporterSchema = section({
  endpoint: listenEndpoint({ allowScheme: true }).default({
    host: DEFAULT_PROMETHEUS_HOST,
    port: DEFAULT_PROMETHEUS_PORT,
  }),
  tls: serverTlsSchema.optional(),
}).transform(
  (exporter): PrometheusExporterConfig => ({
    ...exporter.endpoint,
    ...(exporter.tls !== undefined ? { tls: exporter.tls } : {}),
  }),
);
