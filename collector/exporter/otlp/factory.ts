/**
 * The `otlphttp` exporter (and each `otlphttp/<name>`): for each pipeline that lists it, the
 * OTLP/HTTP exporter of that signal, to its own endpoint, with its own headers and TLS. Every
 * failed export is logged under the exporter's id and counted by signal.
 */
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type {
  ExportFailureCounts,
  ExporterFactory,
  ExporterParts,
  ExporterSettings,
  ExporterUse,
  Signal,
} from '../exporter-factory.ts';
import { readClientTls } from '../../security/tls-files.ts';
import { otlpHttpExporterSchema, type OtlpHttpExporterConfig } from './config.ts';
import { watchExportFailures } from './export-failures.ts';
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

export const otlpHttpExporterFactory: ExporterFactory<OtlpHttpExporterConfig> = {
  kind: 'exporter',
  type: 'otlphttp',
  schema: otlpHttpExporterSchema,
  configuredByDefault: false,
  signals: ['traces', 'logs', 'metrics'],
  create(settings: ExporterSettings, config: OtlpHttpExporterConfig, use: ExporterUse): ExporterParts {
    const { logger } = settings;
    const where = `exporters::${settings.id}`;
    // Read now, at startup: a TLS file that cannot be used stops the collector, naming its key.
    const tls = config.tls ? readClientTls(config.tls, `${where}::tls`) : undefined;
    if (config.tls?.insecureSkipVerify)
      logger.warn(`${where}: tls::insecure_skip_verify is true: the server's certificate is not checked`);
    const failures: ExportFailureCounts = {};
    const counted = (signal: Signal) => {
      failures[signal] = 0;
      return () => {
        failures[signal] = (failures[signal] ?? 0) + 1;
      };
    };
    const watch = (what: string, path: string, signal: Signal) => ({
      where,
      what,
      url: urlOf(config, path),
      logger,
      onFailure: counted(signal),
    });
    const parts: ExporterParts = { failures };
    if (use.logs) {
      parts.logExporter = watchExportFailures(
        createOtlpLogExporter(config, tls),
        watch('verdict events', LOGS_PATH, 'logs'),
      );
    }
    if (use.traces) {
      const spans = watch('evaluation spans', TRACES_PATH, 'traces');
      parts.spanExporter = watchExportFailures(createOtlpEvaluationSpanExporter(config, tls), spans);
      // The forwarder reports its own failed exports; they count with the signal's others.
      if (use.traces.forward) {
        parts.forwarder = createSpanForwarder({
          exporter: createOtlpTraceExporter(config, tls),
          logger,
          where,
          onFailure: spans.onFailure,
        });
      }
    }
    if (use.metrics) {
      parts.metricReader = new PeriodicExportingMetricReader({
        exporter: watchExportFailures(createOtlpMetricExporter(config, tls), watch('metrics', METRICS_PATH, 'metrics')),
        exportIntervalMillis: settings.metricExportIntervalMs,
      });
    }
    return parts;
  },
};
