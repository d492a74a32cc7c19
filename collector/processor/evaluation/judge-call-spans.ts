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
import { evaluationSpanId } from '../../telemetry/identity.ts';
import {
  ERROR_TYPE,
  EVALON_EVALUATOR_ID,
  EVALON_MODEL_ATTEMPT,
  EVALON_MODEL_ATTEMPTS,
  EVALON_MODEL_RETRY_DELAY_MS,
  EVALUATION_ID_ATTRIBUTE,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MAX_TOKENS,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_REQUEST_TEMPERATURE,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_RESPONSE_ID,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  HTTP_RESPONSE_STATUS_CODE,
} from '../../../src/model/attributes.ts';
import { COLLECTOR_SCOPE, EVALON_MODEL_RETRY_EVENT } from '../../../src/model/telemetry-names.ts';

export const JUDGE_PROVIDER = 'anthropic';

export function judgeCallSpanName(call: Pick<JudgeCall, 'requestModel'>): string {
  return `chat ${call.requestModel}`;
}

/** A judge-call recorder that makes each call a span through `provider`, stamped by `now`. */
export function createJudgeCallSpans(provider: TracerProvider, now: () => number): JudgeCallRecorder {
  const tracer = provider.getTracer(COLLECTOR_SCOPE);
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
    [GEN_AI_OPERATION_NAME]: 'chat',
    [GEN_AI_PROVIDER_NAME]: JUDGE_PROVIDER,
    [GEN_AI_REQUEST_MODEL]: call.requestModel,
    [GEN_AI_REQUEST_MAX_TOKENS]: call.maxTokens,
    ...(call.temperature !== undefined ? { [GEN_AI_REQUEST_TEMPERATURE]: call.temperature } : {}),
    [EVALUATION_ID_ATTRIBUTE]: call.evaluationId,
    [EVALON_EVALUATOR_ID]: call.evaluatorId,
    [EVALON_MODEL_ATTEMPTS]: call.retries.length + 1,
  };
  const response = call.response;
  if (response) {
    if (response.model !== undefined) attributes[GEN_AI_RESPONSE_MODEL] = response.model;
    if (response.id !== undefined) attributes[GEN_AI_RESPONSE_ID] = response.id;
    if (response.stopReason !== null) attributes[GEN_AI_RESPONSE_FINISH_REASONS] = [response.stopReason];
    attributes[GEN_AI_USAGE_INPUT_TOKENS] = response.usage.input_tokens;
    attributes[GEN_AI_USAGE_OUTPUT_TOKENS] = response.usage.output_tokens;
  }
  if (call.error) attributes[ERROR_TYPE] = call.error.type;
  const span = tracer.startSpan(
    judgeCallSpanName(call),
    { kind: SpanKind.CLIENT, startTime: call.startTimeMs, attributes },
    parent,
  );
  for (const retry of call.retries) {
    span.addEvent(
      EVALON_MODEL_RETRY_EVENT,
      {
        [EVALON_MODEL_ATTEMPT]: retry.attempt,
        ...(retry.status !== undefined ? { [HTTP_RESPONSE_STATUS_CODE]: retry.status } : {}),
        [ERROR_TYPE]: retry.errorType,
        [EVALON_MODEL_RETRY_DELAY_MS]: Math.round(retry.delayMs),
      },
      retry.timeMs,
    );
  }
  if (call.error) span.setStatus({ code: SpanStatusCode.ERROR, message: call.error.message });
  span.end(Math.max(call.startTimeMs, call.endTimeMs));
}
