/**
 * The whole `otel-config.yaml` shape: one section per OpenTelemetry Collector block, each
 * component's schema in `components/`. Parsing yields the normalised `EvalonConfig` except for
 * relative paths, which the loader resolves against the file that wrote them.
 */
import type { EvalonConfig } from './evalon-config.ts';
import { apiExtensionSchema } from './components/api-extension.ts';
import { evaluationProcessorSchema } from './components/evaluation-processor.ts';
import { otlpHttpExporterSchema, prometheusExporterSchema } from './components/exporters.ts';
import { interactionsProcessorSchema } from './components/interactions-processor.ts';
import { otlpReceiverSchema } from './components/otlp-receiver.ts';
import { serviceSchema } from './components/service.ts';
import { section } from './schema-kit.ts';

export const configSchema = section({
  receivers: section({ otlp: otlpReceiverSchema.optional() }),
  processors: section({ interactions: interactionsProcessorSchema, evaluation: evaluationProcessorSchema }),
  exporters: section({ otlphttp: otlpHttpExporterSchema.optional(), prometheus: prometheusExporterSchema.optional() }),
  extensions: section({ api: apiExtensionSchema.optional() }),
  service: serviceSchema,
}).transform(
  (config): EvalonConfig => ({
    receivers: config.receivers.otlp ? { otlp: config.receivers.otlp } : {},
    processors: config.processors,
    exporters: {
      ...(config.exporters.otlphttp ? { otlphttp: config.exporters.otlphttp } : {}),
      ...(config.exporters.prometheus ? { prometheus: config.exporters.prometheus } : {}),
    },
    extensions: config.extensions.api ? { api: config.extensions.api } : {},
    service: config.service,
  }),
);
