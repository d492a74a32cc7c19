/** The `prometheus` exporter: a scrape endpoint, the metric reader of the metrics pipeline. */
import { readServerTls } from '../../security/tls-files.ts';
import type { ExporterFactory, ExporterParts, ExporterSettings } from '../exporter-factory.ts';
import { prometheusExporterSchema, type PrometheusExporterConfig } from './config.ts';
import { createPrometheusEndpoint } from './prometheus-endpoint.ts';

export const prometheusExporterFactory: ExporterFactory<PrometheusExporterConfig> = {
  kind: 'exporter',
  type: 'prometheus',
  schema: prometheusExporterSchema,
  configuredByDefault: false,
  signals: ['metrics'],
  create(settings: ExporterSettings, config: PrometheusExporterConfig): ExporterParts {
    const where = `exporters::${settings.id}`;
    // Read now, at startup: a TLS file that cannot be used stops the collector, naming its key.
    const tls = config.tls ? readServerTls(config.tls, `${where}::tls`) : undefined;
    const endpoint = createPrometheusEndpoint(config, { logger: settings.logger, where, ...(tls ? { tls } : {}) });
    return { metricReader: endpoint.reader, scrapeEndpoint: endpoint };
  },
};
