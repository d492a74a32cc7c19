/**
 * The Anthropic TypeScript SDK's native tracing (scope `com.anthropic.sdk.typescript`). Its spans
 * are GenAI semconv spans, with these differences:
 * - `anthropic.messages.tool_runner` is the invocation (`invoke_agent`), with no agent identity and
 *   no messages: the record's content comes from its `anthropic.messages.create` chat spans;
 * - with message threads a chat span's `gen_ai.input.messages` holds only the turn's new messages;
 * - a tool span (`anthropic.custom_tool_use <name>`, `execute_tool`) has its result in
 *   `anthropic.tool_result.content` (a JSON list of content blocks), not `gen_ai.tool.call.result`,
 *   and fails with `error.type = tool_error` and the error text as that content;
 * - the stop reason is `anthropic.message.stop_reason` when the output has no finish reason;
 * - a span without `gen_ai.operation.name` (count_tokens, files, batches...) is neither a model
 *   call nor a tool, whatever model it names.
 */
import type { SpanData, SpanHead } from '../../../model/span.ts';
import { ANTHROPIC_MESSAGE_STOP_REASON, ANTHROPIC_TOOL_RESULT_CONTENT } from '../../../../src/model/attributes.ts';
import { str } from './attribute-values.ts';
import { unwrapResult, withFinishReasons } from './messages.ts';
import { operationRole, readSemconv, semconvOutput } from './semconv.ts';
import { once, type SpanRole, type SpanView } from './span-view.ts';

export const ANTHROPIC_SCOPE_PREFIX = 'com.anthropic.sdk';
/** The SDK's agent loop: the invocation, also when another tracer provider's scope names it. */
export const ANTHROPIC_TOOL_RUNNER_SPAN = 'anthropic.messages.tool_runner';

export function isAnthropicSpan(span: SpanHead): boolean {
  return span.origin.scopeName.startsWith(ANTHROPIC_SCOPE_PREFIX) || span.name === ANTHROPIC_TOOL_RUNNER_SPAN;
}

/** Only the operation name says what an SDK span is: `messages.count_tokens` names a model too. */
export function anthropicRole(span: SpanHead): SpanRole {
  return operationRole(span.attributes) ?? 'other';
}

export function readAnthropic(span: SpanData): SpanView {
  const view = readSemconv(span, anthropicRole(span));
  const attributes = span.attributes;
  if (view.role === 'model_call') {
    const stopReason = str(attributes, ANTHROPIC_MESSAGE_STOP_REASON);
    return {
      ...view,
      output: once(() => {
        const messages = semconvOutput(attributes);
        return messages && stopReason ? withFinishReasons(messages, [stopReason]) : messages;
      }),
    };
  }
  if (view.role === 'tool' && view.tool) {
    const tool = { ...view.tool };
    const content = attributes[ANTHROPIC_TOOL_RESULT_CONTENT];
    if (tool.result === undefined && content !== undefined) tool.result = unwrapResult(content);
    // The runner reports a tool's failure as `tool_error`; the error text is the tool's result.
    if (tool.error !== undefined && !span.status.message && typeof tool.result === 'string' && tool.result !== '') {
      tool.error = tool.result;
    }
    return { ...view, tool };
  }
  return view;
}
