/**
 * `service`: which extensions start, which components each pipeline chains, and the collector's
 * own telemetry (`telemetry.logs`: level and encoding of its log, as the OpenTelemetry Collector
 * words them). The shape is checked here; whether the names refer to configured components is
 * `service-references.ts`.
 */
import * as z from 'zod';
import {
  DEFAULT_LOG_ENCODING,
  DEFAULT_LOG_LEVEL,
  LOG_ENCODINGS,
  LOG_LEVELS,
  type LogEncoding,
  type LogLevel,
} from '../logger.ts';
import { emptyAsList, section } from './schema-kit.ts';

export const DEFAULT_FORWARD = false;

export interface TracesPipelineConfig {
  receivers: string[];
  processors: string[];
  exporters: string[];
  /** Also send the received spans to the exporters, not only the evaluation spans. */
  forward: boolean;
}

/** `service.telemetry`: the collector's own log. */
export interface TelemetryConfig {
  logs: { level: LogLevel; encoding: LogEncoding };
}

export interface ServiceConfig {
  /** Extensions to start. */
  extensions: string[];
  telemetry: TelemetryConfig;
  pipelines: {
    traces?: TracesPipelineConfig;
    logs?: { exporters: string[] };
    metrics?: { exporters: string[] };
  };
}

const names = emptyAsList(z.array(z.string()));

const NO_RECEIVERS = (signal: string) => (key: string) =>
  key === 'receivers' || key === 'processors'
    ? `is not allowed: the ${signal} pipeline has no ${key} (its ` +
      'source is the evaluation processor and the collector itself)'
    : undefined;

const tracesSchema = section({
  receivers: names,
  processors: names,
  exporters: names,
  forward: z.boolean().default(DEFAULT_FORWARD),
});

const telemetrySchema = section({
  logs: section({
    level: z.enum(LOG_LEVELS as [LogLevel, ...LogLevel[]]).default(DEFAULT_LOG_LEVEL),
    encoding: z.enum(LOG_ENCODINGS as [LogEncoding, ...LogEncoding[]]).default(DEFAULT_LOG_ENCODING),
  }),
});

export const serviceSchema = section({
  extensions: names,
  telemetry: telemetrySchema,
  pipelines: section({
    traces: tracesSchema.optional(),
    logs: section({ exporters: names }, { explainUnknown: NO_RECEIVERS('logs') }).optional(),
    metrics: section({ exporters: names }, { explainUnknown: NO_RECEIVERS('metrics') }).optional(),
  }),
}).transform((service): ServiceConfig => {
  const { traces, logs, metrics } = service.pipelines;
  return {
    extensions: service.extensions,
    telemetry: service.telemetry,
    pipelines: {
      ...(traces ? { traces } : {}),
      ...(logs ? { logs } : {}),
      ...(metrics ? { metrics } : {}),
    },
  };
});
