/**
 * Evaluation spans: `evaluate <evaluator-id>` in the interaction's trace, a child of the
 * interaction span, timed from the attempt's start to the outcome, carrying the
 * `gen_ai.evaluation.result` span event (for backends that show span events, not log-based
 * events) and status ERROR when the evaluation failed. Exported over `/v1/traces`.
 *
 * The span is written after the fact, from the recorded times (`startedAt` is the start of the
 * attempt that recorded the outcome). Its span id is derived from the evaluation id
 * (evaluation-span-id.ts), so a judge's model calls, exported as they happen through the same
 * provider (`tracerProvider`, which the evaluation runtime is given), already name it as their parent.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import type { TracerProvider as ApiTracerProvider } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  RandomIdGenerator,
  TracerProvider,
  type IdGenerator,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { evaluationSpanId } from '../../telemetry/identity.ts';
import { evaluationSpanAttributes, type EvaluatedSpan, type VerdictAttributes } from '../verdict-attributes.ts';
import { COLLECTOR_SCOPE, GEN_AI_EVALUATION_RESULT_EVENT } from '../../../src/model/telemetry-names.ts';
import { MAX_ATTRIBUTE_LENGTH, MAX_QUEUED_RECORDS } from './verdict-events.ts';

export interface EvaluationSpans {
  emit(record: EvaluationRecord, attributes: VerdictAttributes, evaluated: EvaluatedSpan): void;
  /** The provider the evaluation spans are made on: judges' model calls are made on it too (judge-call-spans.ts). */
  readonly tracerProvider: ApiTracerProvider;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function evaluationSpanName(evaluatorId: string): string {
  return `evaluate ${evaluatorId}`;
}

/**
 * Random ids, except for the next span id when one is set: `startSpan` asks for exactly one span
 * id, synchronously, so setting it just before gives that span the derived id.
 */
function createFixableIdGenerator(): IdGenerator & { next?: string } {
  const random = new RandomIdGenerator();
  const generator: IdGenerator & { next?: string } = {
    generateTraceId: () => random.generateTraceId(),
    generateSpanId() {
      const fixed = generator.next;
      generator.next = undefined;
      return fixed ?? random.generateSpanId();
    },
  };
  return generator;
}

/** One provider; each exporter has its own batch processor, so one slow or failing backend holds up no other. */
export function createEvaluationSpans(options: {
  exporters: readonly SpanExporter[];
  resource: Resource;
  scopeVersion?: string;
}): EvaluationSpans {
  const ids = createFixableIdGenerator();
  const provider = new TracerProvider({
    idGenerator: ids,
    resource: options.resource,
    // The interaction was received, so it is kept: its evaluation is too, whatever its flags say.
    sampler: new AlwaysOnSampler(),
    spanLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_LENGTH },
    spanProcessors: options.exporters.map(
      (exporter) => new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUED_RECORDS }),
    ),
  });
  const tracer = provider.getTracer(COLLECTOR_SCOPE, options.scopeVersion);
  return {
    emit(record, attributes, evaluated) {
      const parent = trace.setSpanContext(ROOT_CONTEXT, {
        ...evaluated,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
      const startedAt = Date.parse(record.startedAt);
      // A clock step between the two stamps must not give a span that ends before it starts.
      const completedAt = Math.max(startedAt, Date.parse(record.completedAt));
      ids.next = evaluationSpanId(record.evaluationId);
      const span = tracer.startSpan(
        evaluationSpanName(record.evaluatorId),
        { kind: SpanKind.INTERNAL, startTime: startedAt, attributes: evaluationSpanAttributes(record, attributes) },
        parent,
      );
      ids.next = undefined;
      span.addEvent(GEN_AI_EVALUATION_RESULT_EVENT, attributes, completedAt);
      const outcome = record.outcome;
      if (outcome.type === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
      span.end(completedAt);
    },
    tracerProvider: provider,
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
