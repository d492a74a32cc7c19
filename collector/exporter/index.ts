/** The exporters stage's public surface (see README.md). */
export {
  createTelemetryExporters,
  DEFAULT_METRIC_EXPORT_INTERVAL_MS,
  DEFAULT_SERVICE_NAME,
  type TelemetryExporters,
  type TelemetryExportersOptions,
} from './telemetry-exporters.ts';
export { createForwardingConsumer } from './forwarding-consumer.ts';
export type { CollectorMetrics, CollectorMetricSources, TokenUsage } from './collector-metrics.ts';
export type { VerdictRecorder } from './verdict-recorder.ts';
export type { SpanForwarder, SpanForwarderStats } from './otlp/span-forwarder.ts';
export { ExporterStartError } from './errors.ts';
export { METRICS } from './metric-definitions.ts';
export { outcomeLabel, verdictAttributes, type OutcomeLabel } from './verdict-attributes.ts';
