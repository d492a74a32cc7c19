/**
 * The normalised collector configuration: what `loadConfig` returns once `otel-config.yaml` (and
 * any override files) have been merged, expanded and validated. Durations are milliseconds, sizes
 * are bytes, endpoints are `{ host, port }`, relative paths are absolute. Optional fields are
 * absent (not `undefined`-valued) when the YAML did not set them.
 *
 * Each component's part is declared beside its schema, in the component's folder; `schema.ts`
 * checks at compile time that this shape and the component registry agree.
 */
import type { ApiExtensionConfig } from '../api/config.ts';
import type { OtlpHttpExporterConfig } from '../exporter/otlp/config.ts';
import type { PrometheusExporterConfig } from '../exporter/prometheus/config.ts';
import type { EvaluationProcessorConfig } from '../processor/evaluation/config.ts';
import type { InteractionsProcessorConfig } from '../processor/interactions/config.ts';
import type { OtlpProtocolsConfig } from '../receiver/otlp/config.ts';
import type { ServiceConfig } from './service-schema.ts';

export type { ApiExtensionConfig } from '../api/config.ts';
export type { OtlpHttpExporterConfig } from '../exporter/otlp/config.ts';
export type { PrometheusExporterConfig } from '../exporter/prometheus/config.ts';
export type {
  BindingConfig,
  EvaluationDefaultsConfig,
  EvaluationProcessorConfig,
  EvaluatorEntryConfig,
  LedgerConfig,
} from '../processor/evaluation/config.ts';
export type { InteractionsProcessorConfig } from '../processor/interactions/config.ts';
export type { OtlpHttpReceiverConfig, OtlpProtocolsConfig } from '../receiver/otlp/config.ts';
export type { OtlpGrpcReceiverConfig } from '../receiver/otlp/grpc/config.ts';
export type { ServiceConfig, TracesPipelineConfig } from './service-schema.ts';
export type { HostPort } from './values.ts';

export interface ReceiversConfig {
  otlp?: OtlpProtocolsConfig;
}

export interface ProcessorsConfig {
  interactions: InteractionsProcessorConfig;
  evaluation: EvaluationProcessorConfig;
}

/**
 * Exporters by id: `type` or `type/name` (`otlphttp/tempo`), each configured by its type's schema
 * (config/component-id.ts). Only the ids written are present.
 */
export interface ExportersConfig {
  otlphttp?: OtlpHttpExporterConfig;
  [id: `otlphttp/${string}`]: OtlpHttpExporterConfig;
  /** Prometheus scrape endpoint. */
  prometheus?: PrometheusExporterConfig;
  [id: `prometheus/${string}`]: PrometheusExporterConfig;
}

export interface ExtensionsConfig {
  /** Health and ledger queries over HTTP. */
  api?: ApiExtensionConfig;
}

export interface EvalonConfig {
  receivers: ReceiversConfig;
  processors: ProcessorsConfig;
  exporters: ExportersConfig;
  extensions: ExtensionsConfig;
  service: ServiceConfig;
}
