/**
 * Evaluation spans: `evaluate <evaluator-id>` in the interaction's trace, a child of the
 * interaction span, timed from the attempt's start to the outcome, carrying the
 * `gen_ai.evaluation.result` span event (for backends that show span events, not log-based
 * events) and status ERROR when the evaluation failed. Exported over `/v1/traces`.
 *
 * The span is written after the fact, from the recorded times: the runtime does not run the
 * evaluator inside it (see README.md: a judge's model calls are not yet its children).
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { EvaluationRecord } from '../../../src/evaluation/evaluation-record.ts';
import { EVALUATION_RESULT_EVENT, evaluationSpanAttributes, type EvaluatedSpan, type VerdictAttributes } from '../verdict-attributes.ts';
import { MAX_ATTRIBUTE_LENGTH, MAX_QUEUED_RECORDS, SCOPE_NAME } from './verdict-events.ts';

export interface EvaluationSpans {
  emit(record: EvaluationRecord, attributes: VerdictAttributes, evaluated: EvaluatedSpan): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function evaluationSpanName(evaluatorId: string): string {
  return `evaluate ${evaluatorId}`;
}

export function createEvaluationSpans(options: { exporter: SpanExporter; resource: Resource; scopeVersion?: string }): EvaluationSpans {
  const provider = new TracerProvider({
    resource: options.resource,
    // The interaction was received, so it is kept: its evaluation is too, whatever its flags say.
    sampler: new AlwaysOnSampler(),
    spanLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_LENGTH },
    spanProcessors: [new BatchSpanProcessor({ exporter: options.exporter, maxQueueSize: MAX_QUEUED_RECORDS })],
  });
  const tracer = provider.getTracer(SCOPE_NAME, options.scopeVersion);
  return {
    emit(record, attributes, evaluated) {
      const parent = trace.setSpanContext(ROOT_CONTEXT, { ...evaluated, traceFlags: TraceFlags.SAMPLED, isRemote: true });
      const startedAt = Date.parse(record.startedAt);
      // A clock step between the two stamps must not give a span that ends before it starts.
      const completedAt = Math.max(startedAt, Date.parse(record.completedAt));
      const span = tracer.startSpan(
        evaluationSpanName(record.evaluatorId),
        { kind: SpanKind.INTERNAL, startTime: startedAt, attributes: evaluationSpanAttributes(record, attributes) },
        parent,
      );
      span.addEvent(EVALUATION_RESULT_EVENT, attributes, completedAt);
      const outcome = record.outcome;
      if (outcome.type === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
      span.end(completedAt);
    },
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
