/**
 * OTel GenAI semantic conventions, new and old:
 * - roles from `gen_ai.operation.name` (invoke_agent; chat / text_completion / generate_content;
 *   execute_tool); a span with no operation name but `gen_ai.system` / `llm.request.type` /
 *   `gen_ai.request.model` is a legacy model call;
 * - messages from `gen_ai.input.messages` / `gen_ai.output.messages` (JSON strings or structured),
 *   else the flattened legacy `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`;
 * - finish reasons in the message or in `gen_ai.response.finish_reasons`;
 * - usage from `gen_ai.usage.input_tokens` / `output_tokens`, else `prompt_tokens` / `completion_tokens`;
 * - provider from `gen_ai.provider.name`, else `gen_ai.system`.
 */
import type { Message, MessagePart, ToolCall } from '../../../../src/model/records.ts';
import type { Attributes, SpanData, SpanHead } from '../../../model/span.ts';
import {
  GEN_AI_COMPLETION,
  GEN_AI_INPUT_MESSAGES,
  GEN_AI_OPERATION_NAME,
  GEN_AI_OUTPUT_MESSAGES,
  GEN_AI_PROMPT,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_SYSTEM,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  GEN_AI_USAGE_COMPLETION_TOKENS,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_USAGE_PROMPT_TOKENS,
  LLM_REQUEST_TYPE,
} from '../../../../src/model/attributes.ts';
import { errorTextOf, hasIndexed, indexed, num, parseJsonValue, str, strings } from './attribute-values.ts';
import { messagesFrom, partsFromContent, toMessage, unwrapResult, withFinishReasons } from './messages.ts';
import { NONE, once, usageOf, type SpanRole, type SpanView } from './span-view.ts';

const MODEL_CALL_OPERATIONS: ReadonlySet<string> = new Set(['chat', 'text_completion', 'generate_content']);

/** The role `gen_ai.operation.name` gives, or undefined when the span has none. */
export function operationRole(attributes: Attributes): SpanRole | undefined {
  const operation = attributes[GEN_AI_OPERATION_NAME];
  if (operation === 'invoke_agent') return 'invocation';
  if (operation === 'execute_tool') return 'tool';
  if (typeof operation === 'string') return MODEL_CALL_OPERATIONS.has(operation) ? 'model_call' : 'other';
  return undefined;
}

export function semconvRole(span: SpanHead): SpanRole {
  const attributes = span.attributes;
  const role = operationRole(attributes);
  if (role !== undefined) return role;
  const requestType = attributes[LLM_REQUEST_TYPE];
  if (requestType === 'chat' || requestType === 'completion') return 'model_call';
  if (attributes[GEN_AI_SYSTEM] !== undefined || attributes[GEN_AI_REQUEST_MODEL] !== undefined) return 'model_call';
  return 'other';
}

export function readSemconv(span: SpanData, role: SpanRole = semconvRole(span)): SpanView {
  const attributes = span.attributes;
  return {
    span,
    role,
    input: once(() => semconvInput(attributes)),
    output: once(() => semconvOutput(attributes)),
    plainInput: NONE,
    plainOutput: NONE,
    usage: semconvUsage(attributes),
    model: str(attributes, GEN_AI_RESPONSE_MODEL) ?? str(attributes, GEN_AI_REQUEST_MODEL),
    provider: str(attributes, GEN_AI_PROVIDER_NAME) ?? str(attributes, GEN_AI_SYSTEM),
    tool: role === 'tool' ? semconvTool(span) : undefined,
  };
}

export function semconvUsage(attributes: Attributes) {
  return usageOf(
    num(attributes, GEN_AI_USAGE_INPUT_TOKENS) ?? num(attributes, GEN_AI_USAGE_PROMPT_TOKENS),
    num(attributes, GEN_AI_USAGE_OUTPUT_TOKENS) ?? num(attributes, GEN_AI_USAGE_COMPLETION_TOKENS),
  );
}

export function semconvInput(attributes: Attributes): Message[] | undefined {
  return messagesFrom(attributes[GEN_AI_INPUT_MESSAGES]) ?? legacyMessages(attributes, GEN_AI_PROMPT, 'user');
}

export function semconvOutput(attributes: Attributes): Message[] | undefined {
  const messages =
    messagesFrom(attributes[GEN_AI_OUTPUT_MESSAGES]) ?? legacyMessages(attributes, GEN_AI_COMPLETION, 'assistant');
  return messages && withFinishReasons(messages, strings(attributes, GEN_AI_RESPONSE_FINISH_REASONS));
}

export function semconvTool(span: SpanData): ToolCall {
  const attributes = span.attributes;
  const name =
    str(attributes, GEN_AI_TOOL_NAME) ??
    (span.name.startsWith('execute_tool ') ? span.name.slice('execute_tool '.length) : span.name);
  const call: ToolCall = { name };
  const callId = str(attributes, GEN_AI_TOOL_CALL_ID);
  if (callId !== undefined) call.callId = callId;
  const args = attributes[GEN_AI_TOOL_CALL_ARGUMENTS];
  if (args !== undefined) call.arguments = parseJsonValue(args);
  const result = attributes[GEN_AI_TOOL_CALL_RESULT];
  if (result !== undefined) call.result = unwrapResult(result);
  const error = errorTextOf(span);
  if (error !== undefined) call.error = error;
  return call;
}

/**
 * The flattened legacy form: `<prefix>.N.role`, `.content` (text, or JSON content blocks),
 * `.tool_call_id`, `.finish_reason`, `.tool_calls.J.{id,name,arguments}`.
 */
export function legacyMessages(attributes: Attributes, prefix: string, defaultRole: string): Message[] | undefined {
  if (!hasIndexed(attributes, prefix)) return undefined;
  const messages: Message[] = [];
  for (const entry of indexed(attributes, prefix)) {
    const role = typeof entry.role === 'string' ? entry.role : defaultRole;
    const parts: MessagePart[] = partsFromContent(entry.content);
    for (const call of indexed(entry, 'tool_calls')) {
      if (typeof call.name !== 'string') continue;
      parts.push({
        type: 'tool_call',
        ...(typeof call.id === 'string' ? { id: call.id } : undefined),
        name: call.name,
        ...(call.arguments !== undefined ? { arguments: parseJsonValue(call.arguments) } : undefined),
      });
    }
    const message = toMessage({
      role,
      parts,
      ...(typeof entry.tool_call_id === 'string' ? { tool_call_id: entry.tool_call_id } : undefined),
      ...(typeof entry.finish_reason === 'string' ? { finish_reason: entry.finish_reason } : undefined),
    });
    if (message) messages.push(message);
  }
  return messages;
}
