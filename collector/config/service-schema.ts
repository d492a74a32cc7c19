/**
 * `service`: which extensions start and which components each pipeline chains. The shape is
 * checked here; whether the names refer to configured components is `service-references.ts`.
 */
import * as z from 'zod';
import { emptyAsList, section } from './schema-kit.ts';

export const DEFAULT_FORWARD = false;

export interface TracesPipelineConfig {
  receivers: string[];
  processors: string[];
  exporters: string[];
  /** Also send the received spans to the exporters, not only the evaluation spans. */
  forward: boolean;
}

export interface ServiceConfig {
  /** Extensions to start. */
  extensions: string[];
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

export const serviceSchema = section({
  extensions: names,
  pipelines: section({
    traces: tracesSchema.optional(),
    logs: section({ exporters: names }, { explainUnknown: NO_RECEIVERS('logs') }).optional(),
    metrics: section({ exporters: names }, { explainUnknown: NO_RECEIVERS('metrics') }).optional(),
  }),
}).transform((service): ServiceConfig => {
  const { traces, logs, metrics } = service.pipelines;
  return {
    extensions: service.extensions,
    pipelines: {
      ...(traces ? { traces } : {}),
      ...(logs ? { logs } : {}),
      ...(metrics ? { metrics } : {}),
    },
  };
});
