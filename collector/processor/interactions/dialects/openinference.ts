/**
 * OpenInference (Arize): `openinference.span.kind` AGENT / LLM / TOOL.
 * - LLM messages are flattened: `llm.{input,output}_messages.N.message.{role,content,name,tool_call_id}`,
 *   `...message.tool_calls.J.tool_call.{id,function.name,function.arguments}`,
 *   `...message.contents.K.message_content.{type,text}`; legacy `llm.prompts.N.prompt.text` /
 *   `llm.choices.N.completion.text`;
 * - plain values: `input.value` / `output.value` (the AGENT span's input and answer);
 * - usage `llm.token_count.prompt` / `completion`; model `llm.model_name` (or the request/response
 *   variants); provider `llm.provider`, else `llm.system`;
 * - TOOL spans: `tool.name`, call id `tool.id` (or `tool_call.id`), arguments in `input.value`,
 *   result in `output.value`.
 */
import type { Message, MessagePart, ToolCall } from '../../../../src/model/records.ts';
import type { Attributes, SpanData } from '../../../model/span.ts';
import {
  INPUT_VALUE,
  LLM_CHOICES,
  LLM_FINISH_REASON,
  LLM_INPUT_MESSAGES,
  LLM_MODEL_NAME,
  LLM_OUTPUT_MESSAGES,
  LLM_PROMPTS,
  LLM_PROVIDER,
  LLM_REQUEST_MODEL_NAME,
  LLM_RESPONSE_MODEL_NAME,
  LLM_SYSTEM,
  LLM_TOKEN_COUNT_COMPLETION,
  LLM_TOKEN_COUNT_PROMPT,
  OPENINFERENCE_SPAN_KIND,
  OUTPUT_VALUE,
  TOOL_CALL_FUNCTION_ARGUMENTS,
  TOOL_CALL_FUNCTION_NAME,
  TOOL_CALL_ID,
  TOOL_ID,
  TOOL_NAME,
} from '../../../../src/model/attributes.ts';
import { errorTextOf, hasIndexed, indexed, num, parseJsonValue, str } from './attribute-values.ts';
import { partsFromContent, textMessage, toMessage, toPart, unwrapResult } from './messages.ts';
import { once, usageOf, type SpanRole, type SpanView } from './span-view.ts';

export function openInferenceRole(kind: unknown): SpanRole {
  switch (typeof kind === 'string' ? kind.toUpperCase() : undefined) {
    case 'AGENT':
      return 'invocation';
    case 'LLM':
      return 'model_call';
    case 'TOOL':
      return 'tool';
    default:
      return 'other';
  }
}

export function readOpenInference(span: SpanData): SpanView {
  const attributes = span.attributes;
  const role = openInferenceRole(attributes[OPENINFERENCE_SPAN_KIND]);
  return {
    span,
    role,
    input: once(
      () =>
        flattenedMessages(attributes, LLM_INPUT_MESSAGES, 'user') ??
        legacyPrompts(attributes, LLM_PROMPTS, 'prompt.text', 'user'),
    ),
    output: once(() => {
      const messages =
        flattenedMessages(attributes, LLM_OUTPUT_MESSAGES, 'assistant') ??
        legacyPrompts(attributes, LLM_CHOICES, 'completion.text', 'assistant');
      const reason = str(attributes, LLM_FINISH_REASON);
      if (messages && reason) for (const message of messages) message.finishReason ??= reason;
      return messages;
    }),
    plainInput: once(() => textMessage('user', plainValue(attributes[INPUT_VALUE]))),
    plainOutput: once(() => textMessage('assistant', plainValue(attributes[OUTPUT_VALUE]))),
    usage: usageOf(num(attributes, LLM_TOKEN_COUNT_PROMPT), num(attributes, LLM_TOKEN_COUNT_COMPLETION)),
    model:
      str(attributes, LLM_RESPONSE_MODEL_NAME) ??
      str(attributes, LLM_MODEL_NAME) ??
      str(attributes, LLM_REQUEST_MODEL_NAME),
    provider: str(attributes, LLM_PROVIDER) ?? str(attributes, LLM_SYSTEM),
    tool: role === 'tool' ? openInferenceTool(span) : undefined,
  };
}

function openInferenceTool(span: SpanData): ToolCall {
  const attributes = span.attributes;
  const call: ToolCall = {
    name: str(attributes, TOOL_NAME) ?? str(attributes, TOOL_CALL_FUNCTION_NAME) ?? span.name,
  };
  const callId = str(attributes, TOOL_ID) ?? str(attributes, TOOL_CALL_ID);
  if (callId !== undefined) call.callId = callId;
  const args = attributes[INPUT_VALUE] ?? attributes[TOOL_CALL_FUNCTION_ARGUMENTS];
  if (args !== undefined) call.arguments = parseJsonValue(args);
  const result = attributes[OUTPUT_VALUE];
  if (result !== undefined) call.result = unwrapResult(result);
  const error = errorTextOf(span);
  if (error !== undefined) call.error = error;
  return call;
}

/**
 * A plain value as text: a JSON string that holds a string is that string; anything else is kept
 * as written (frameworks often wrap the question, e.g. `{"input": "..."}`; we do not guess keys).
 */
function plainValue(value: unknown): unknown {
  const parsed = parseJsonValue(value);
  return typeof parsed === 'string' ? parsed : value;
}

function flattenedMessages(attributes: Attributes, prefix: string, defaultRole: string): Message[] | undefined {
  if (!hasIndexed(attributes, prefix)) return undefined;
  const messages: Message[] = [];
  for (const entry of indexed(attributes, prefix)) {
    const parts: MessagePart[] = partsFromContent(entry['message.content']);
    for (const content of indexed(entry, 'message.contents')) {
      const part = toPart({ type: content['message_content.type'], text: content['message_content.text'] });
      if (part) parts.push(part);
    }
    for (const call of indexed(entry, 'message.tool_calls')) {
      const name = call[TOOL_CALL_FUNCTION_NAME];
      if (typeof name !== 'string') continue;
      const id = call[TOOL_CALL_ID];
      const args = call[TOOL_CALL_FUNCTION_ARGUMENTS];
      parts.push({
        type: 'tool_call',
        ...(typeof id === 'string' ? { id } : undefined),
        name,
        ...(args !== undefined ? { arguments: parseJsonValue(args) } : undefined),
      });
    }
    const message = toMessage({
      role: typeof entry['message.role'] === 'string' ? entry['message.role'] : defaultRole,
      parts,
      name: entry['message.name'],
      tool_call_id: entry['message.tool_call_id'],
    });
    if (message) messages.push(message);
  }
  return messages;
}

function legacyPrompts(attributes: Attributes, prefix: string, key: string, role: string): Message[] | undefined {
  if (!hasIndexed(attributes, prefix)) return undefined;
  return indexed(attributes, prefix)
    .filter((entry) => typeof entry[key] === 'string')
    .map((entry) => ({ role, parts: [{ type: 'text', content: entry[key] as string }] }));
}
