/**
 * `exporters.prometheus`: a scrape endpoint for the collector's metrics.
 */
import { section } from '../../config/schema-kit.ts';
import { listenEndpoint, type HostPort } from '../../config/values.ts';

export const DEFAULT_PROMETHEUS_HOST = '127.0.0.1';
export const DEFAULT_PROMETHEUS_PORT = 9464;

/** `exporters.prometheus`, normalised: where the scrape endpoint listens. */
export type PrometheusExporterConfig = HostPort;

export const prometheusExporterSchema = section({
  endpoint: listenEndpoint({ allowScheme: true }).default({
    host: DEFAULT_PROMETHEUS_HOST,
    port: DEFAULT_PROMETHEUS_PORT,
  }),
}).transform((exporter): PrometheusExporterConfig => exporter.endpoint);
