/**
 * The exporter types there are, by their key under `exporters`. The exporters stage builds from
 * this list, and the collector's component registry (`collector/components.ts`) lists it.
 */
import { otlpHttpExporterFactory } from './otlp/factory.ts';
import { prometheusExporterFactory } from './prometheus/factory.ts';

export const EXPORTER_FACTORIES = {
  otlphttp: otlpHttpExporterFactory,
  prometheus: prometheusExporterFactory,
} as const;
