/**
 * Judge call spans: one `chat <model>` CLIENT span per model call an LLM judge makes, in the
 * evaluated interaction's trace, child of the evaluation's `evaluate <evaluator-id>` span (its
 * span id is derived from the evaluation id, so the parent need not be exported yet). The
 * evaluation runtime records its judges' calls through `createJudgeCallSpans(provider)`, on the
 * tracer provider it was given (the evaluation spans' own, when the collector exports traces).
 *
 * GenAI client span conventions: `gen_ai.operation.name`, `gen_ai.provider.name`,
 * `gen_ai.request.model` / `max_tokens` / `temperature`, `gen_ai.response.model` / `id` /
 * `finish_reasons`, `gen_ai.usage.input_tokens` / `output_tokens`; on failure `error.type` and
 * status ERROR. One span per call, not per HTTP attempt: each retried attempt is a span event
 * `evalon.model.retry` (attempt, status, `error.type`, the wait), and `evalon.model.attempts`
 * counts them all, so the span's tokens are the call's and summing spans never double counts.
 *
 * Every span carries the loop-safety mark `evalon.evaluation.id` (and `evalon.evaluator.id`): if
 * it comes back to a collector it is recorded, never evaluated. No message content is captured
 * (opt-in in semconv; a judge's prompt holds the judged interaction's text).
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { JudgeCall, JudgeCallRecorder } from '../../evaluators/judge-calls.ts';
import { EVALUATION_ID_ATTRIBUTE } from '../../../src/model/attributes.ts';
import { evaluationSpanId, SCOPE_NAME } from '../../telemetry/identity.ts';

export const JUDGE_PROVIDER = 'anthropic';
export const RETRY_EVENT = 'evalon.model.retry';

export function judgeCallSpanName(call: Pick<JudgeCall, 'requestModel'>): string {
  return `chat ${call.requestModel}`;
}

/** A judge-call recorder that makes each call a span through `provider`, stamped by `now`. */
export function createJudgeCallSpans(provider: TracerProvider, now: () => number): JudgeCallRecorder {
  const tracer = provider.getTracer(SCOPE_NAME);
  return {
    now,
    record(call) {
      try {
        emitJudgeCallSpan(tracer, call);
      } catch {
        // Telemetry never fails the judge.
      }
    },
  };
}

export function emitJudgeCallSpan(tracer: Tracer, call: JudgeCall): void {
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: call.traceId,
    spanId: evaluationSpanId(call.evaluationId),
    traceFlags: TraceFlags.SAMPLED,
  });
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': JUDGE_PROVIDER,
    'gen_ai.request.model': call.requestModel,
    'gen_ai.request.max_tokens': call.maxTokens,
    ...(call.temperature !== undefined ? { 'gen_ai.request.temperature': call.temperature } : {}),
    [EVALUATION_ID_ATTRIBUTE]: call.evaluationId,
    'evalon.evaluator.id': call.evaluatorId,
    'evalon.model.attempts': call.retries.length + 1,
  };
  const response = call.response;
  if (response) {
    if (response.model !== undefined) attributes['gen_ai.response.model'] = response.model;
    if (response.id !== undefined) attributes['gen_ai.response.id'] = response.id;
    if (response.stopReason !== null) attributes['gen_ai.response.finish_reasons'] = [response.stopReason];
    attributes['gen_ai.usage.input_tokens'] = response.usage.input_tokens;
    attributes['gen_ai.usage.output_tokens'] = response.usage.output_tokens;
  }
  if (call.error) attributes['error.type'] = call.error.type;
  const span = tracer.startSpan(
    judgeCallSpanName(call),
    { kind: SpanKind.CLIENT, startTime: call.startTimeMs, attributes },
    parent,
  );
  for (const retry of call.retries) {
    span.addEvent(
      RETRY_EVENT,
      {
        'evalon.model.attempt': retry.attempt,
        ...(retry.status !== undefined ? { 'http.response.status_code': retry.status } : {}),
        'error.type': retry.errorType,
        'evalon.model.retry.delay_ms': Math.round(retry.delayMs),
      },
      retry.timeMs,
    );
  }
  if (call.error) span.setStatus({ code: SpanStatusCode.ERROR, message: call.error.message });
  span.end(Math.max(call.startTimeMs, call.endTimeMs));
}
