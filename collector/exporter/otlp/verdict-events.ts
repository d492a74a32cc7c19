/**
 * Verdict events: one OTLP log record per recorded evaluation, `event_name`
 * `gen_ai.evaluation.result`, parented to the evaluated interaction span (its trace and span ids
 * travel in the record's context, as the semantic conventions ask), exported over `/v1/logs`.
 */
import { ROOT_CONTEXT, SeverityNumber, TraceFlags, trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { EvaluatedSpan, VerdictAttributes } from '../verdict-attributes.ts';
import { COLLECTOR_SCOPE, GEN_AI_EVALUATION_RESULT_EVENT } from '../../../src/model/telemetry-names.ts';

/** Explanations can be long (a judge's reasoning); beyond this they are cut. */
export const MAX_ATTRIBUTE_LENGTH = 16_384;
/** Records waiting for export; beyond this the newest are dropped (the SDK counts them). */
export const MAX_QUEUED_RECORDS = 8_192;

export interface VerdictEvents {
  emit(record: EvaluationRecord, attributes: VerdictAttributes, evaluated: EvaluatedSpan): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** One provider; each exporter has its own batch processor, so one slow or failing backend holds up no other. */
export function createVerdictEvents(options: {
  exporters: readonly LogRecordExporter[];
  resource: Resource;
  scopeVersion?: string;
}): VerdictEvents {
  const provider = new LoggerProvider({
    resource: options.resource,
    logRecordLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_LENGTH },
    processors: options.exporters.map(
      (exporter) => new BatchLogRecordProcessor({ exporter, maxQueueSize: MAX_QUEUED_RECORDS }),
    ),
  });
  const logger = provider.getLogger(COLLECTOR_SCOPE, options.scopeVersion);
  return {
    emit(record, attributes, evaluated) {
      const failed = record.outcome.type === 'failed';
      logger.emit({
        eventName: GEN_AI_EVALUATION_RESULT_EVENT,
        timestamp: new Date(record.completedAt),
        severityNumber: failed ? SeverityNumber.WARN : SeverityNumber.INFO,
        severityText: failed ? 'WARN' : 'INFO',
        attributes,
        context: trace.setSpanContext(ROOT_CONTEXT, { ...evaluated, traceFlags: TraceFlags.SAMPLED, isRemote: true }),
      });
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
