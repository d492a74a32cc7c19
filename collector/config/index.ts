/**
 * Loading and validating `otel-config.yaml`. The collector's only way in: `loadConfig` returns
 * the normalised configuration or throws a `ConfigError` listing every problem.
 */
export { loadConfig, type ConfigLocator, type LoadConfigOptions, type LoadedConfig } from './load-config.ts';
export { ConfigError, formatConfigProblem, type ConfigProblem } from './config-error.ts';
export type {
  BindingConfig,
  EvalonConfig,
  EvaluationDefaultsConfig,
  EvaluationProcessorConfig,
  EvaluatorEntryConfig,
  ExportersConfig,
  ExtensionsConfig,
  HostPort,
  InteractionsProcessorConfig,
  LedgerConfig,
  OtlpHttpExporterConfig,
  OtlpGrpcReceiverConfig,
  OtlpHttpReceiverConfig,
  OtlpProtocolsConfig,
  ProcessorsConfig,
  ReceiversConfig,
  ServiceConfig,
  TracesPipelineConfig,
} from './evalon-config.ts';
export { RESERVED_KEYS } from '../processor/evaluation/config.ts';
