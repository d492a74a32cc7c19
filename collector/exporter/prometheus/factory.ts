/** The `prometheus` exporter: a scrape endpoint, the metric reader of the metrics pipeline. */
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
    const endpoint = createPrometheusEndpoint(config, { logger: settings.logger });
    return { metricReader: endpoint.reader, scrapeEndpoint: endpoint };
  },
};
