/** The `otlphttp` exporter: for each pipeline that lists it, the OTLP/HTTP exporter of that signal. */
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { ExporterFactory, ExporterParts, ExporterSettings, ExporterUse } from '../exporter-factory.ts';
import { otlpHttpExporterSchema, type OtlpHttpExporterConfig } from './config.ts';
import { createEvaluationSpans } from './evaluation-spans.ts';
import { logExportFailures } from './export-failures.ts';
import {
  createOtlpEvaluationSpanExporter,
  createOtlpLogExporter,
  createOtlpMetricExporter,
  createOtlpTraceExporter,
  LOGS_PATH,
  METRICS_PATH,
  TRACES_PATH,
  urlOf,
} from './otlp-http-exporters.ts';
import { createSpanForwarder } from './span-forwarder.ts';
import { createVerdictEvents } from './verdict-events.ts';

export const otlpHttpExporterFactory: ExporterFactory<OtlpHttpExporterConfig> = {
  kind: 'exporter',
  type: 'otlphttp',
  schema: otlpHttpExporterSchema,
  configuredByDefault: false,
  signals: ['traces', 'logs', 'metrics'],
  create(settings: ExporterSettings, config: OtlpHttpExporterConfig, use: ExporterUse): ExporterParts {
    const { logger, resource } = settings;
    const parts: ExporterParts = {};
    if (use.logs) {
      const exporter = logExportFailures(
        createOtlpLogExporter(config),
        'verdict events',
        urlOf(config, LOGS_PATH),
        logger,
      );
      parts.events = createVerdictEvents({ exporter, resource });
    }
    if (use.traces) {
      const exporter = logExportFailures(
        createOtlpEvaluationSpanExporter(config),
        'evaluation spans',
        urlOf(config, TRACES_PATH),
        logger,
      );
      parts.spans = createEvaluationSpans({ exporter, resource });
      // The forwarder counts and reports its own failed exports.
      if (use.traces.forward)
        parts.forwarder = createSpanForwarder({ exporter: createOtlpTraceExporter(config), logger });
    }
    if (use.metrics) {
      parts.metricReader = new PeriodicExportingMetricReader({
        exporter: logExportFailures(createOtlpMetricExporter(config), 'metrics', urlOf(config, METRICS_PATH), logger),
        exportIntervalMillis: settings.metricExportIntervalMs,
      });
    }
    return parts;
  },
};
