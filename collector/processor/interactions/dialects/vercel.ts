/**
 * Vercel AI SDK telemetry, recognised by span name:
 * - `ai.generateText` / `ai.streamText` / `ai.generateObject` / `ai.streamObject`: the invocation;
 *   `ai.prompt` = `{system?, prompt?, messages?}`, the answer in `ai.response.text` /
 *   `.toolCalls` / `.object` (≤ v3: `ai.result.*`), totals in `ai.usage.*`;
 * - `<root>.doGenerate` / `<root>.doStream`: one model call per step; `ai.prompt.messages`, the
 *   step's `ai.response.*`, per-step counts in `gen_ai.usage.*` (and `ai.usage.*`);
 * - `ai.toolCall`: `ai.toolCall.name` / `.id` / `.args` / `.result`.
 * Token names: `inputTokens` / `outputTokens` (v5+), `promptTokens` / `completionTokens` (v4).
 */
import type { Message, MessagePart, ToolCall } from '../../../../src/model/records.ts';
import type { Attributes, SpanData, SpanHead } from '../../../model/span.ts';
import {
  AI_FINISH_REASON,
  AI_MODEL_ID,
  AI_MODEL_PROVIDER,
  AI_OPERATION_ID,
  AI_PROMPT,
  AI_PROMPT_MESSAGES,
  AI_RESPONSE_FINISH_REASON,
  AI_RESPONSE_MODEL,
  AI_RESPONSE_OBJECT,
  AI_RESPONSE_REASONING,
  AI_RESPONSE_TEXT,
  AI_RESPONSE_TOOL_CALLS,
  AI_RESULT_OBJECT,
  AI_RESULT_TEXT,
  AI_RESULT_TOOL_CALLS,
  AI_TOOL_CALL_ARGS,
  AI_TOOL_CALL_ID,
  AI_TOOL_CALL_INPUT,
  AI_TOOL_CALL_NAME,
  AI_TOOL_CALL_OUTPUT,
  AI_TOOL_CALL_RESULT,
  AI_USAGE_COMPLETION_TOKENS,
  AI_USAGE_INPUT_TOKENS,
  AI_USAGE_OUTPUT_TOKENS,
  AI_USAGE_PROMPT_TOKENS,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_SYSTEM,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
} from '../../../../src/model/attributes.ts';
import { errorTextOf, num, parseJsonValue, parseJsonish, str } from './attribute-values.ts';
import { messagesFrom, toMessage, toPart, unwrapResult } from './messages.ts';
import { NONE, once, usageOf, type SpanRole, type SpanView } from './span-view.ts';

const ROOT_SPANS: ReadonlySet<string> = new Set([
  'ai.generateText',
  'ai.streamText',
  'ai.generateObject',
  'ai.streamObject',
]);

export function isVercelSpan(span: SpanHead): boolean {
  return span.name.startsWith('ai.') || typeof span.attributes[AI_OPERATION_ID] === 'string';
}

export function vercelRole(span: SpanHead): SpanRole {
  const name =
    typeof span.attributes[AI_OPERATION_ID] === 'string' ? (span.attributes[AI_OPERATION_ID] as string) : span.name;
  if (ROOT_SPANS.has(name)) return 'invocation';
  if (name === 'ai.toolCall') return 'tool';
  if (name.endsWith('.doGenerate') || name.endsWith('.doStream')) return 'model_call';
  return 'other';
}

export function readVercel(span: SpanData): SpanView {
  const attributes = span.attributes;
  const role = vercelRole(span);
  return {
    span,
    role,
    input: once(() =>
      role === 'invocation' ? rootPrompt(attributes[AI_PROMPT]) : messagesFrom(attributes[AI_PROMPT_MESSAGES]),
    ),
    output: once(() => responseMessages(attributes)),
    plainInput: NONE,
    plainOutput: NONE,
    usage: usageOf(
      num(attributes, GEN_AI_USAGE_INPUT_TOKENS) ??
        num(attributes, AI_USAGE_INPUT_TOKENS) ??
        num(attributes, AI_USAGE_PROMPT_TOKENS),
      num(attributes, GEN_AI_USAGE_OUTPUT_TOKENS) ??
        num(attributes, AI_USAGE_OUTPUT_TOKENS) ??
        num(attributes, AI_USAGE_COMPLETION_TOKENS),
    ),
    model:
      str(attributes, AI_RESPONSE_MODEL) ??
      str(attributes, GEN_AI_RESPONSE_MODEL) ??
      str(attributes, AI_MODEL_ID) ??
      str(attributes, GEN_AI_REQUEST_MODEL),
    provider: str(attributes, AI_MODEL_PROVIDER) ?? str(attributes, GEN_AI_SYSTEM),
    tool: role === 'tool' ? vercelTool(span) : undefined,
  };
}

function vercelTool(span: SpanData): ToolCall {
  const attributes = span.attributes;
  const call: ToolCall = { name: str(attributes, AI_TOOL_CALL_NAME) ?? span.name };
  const callId = str(attributes, AI_TOOL_CALL_ID);
  if (callId !== undefined) call.callId = callId;
  const args = attributes[AI_TOOL_CALL_ARGS] ?? attributes[AI_TOOL_CALL_INPUT];
  if (args !== undefined) call.arguments = parseJsonValue(args);
  const result = attributes[AI_TOOL_CALL_RESULT] ?? attributes[AI_TOOL_CALL_OUTPUT];
  if (result !== undefined) call.result = unwrapResult(result);
  const error = errorTextOf(span);
  if (error !== undefined) call.error = error;
  return call;
}

/** `ai.prompt`: `{system?, prompt?, messages?}`; `prompt` is a string or (v5) a message list. */
function rootPrompt(value: unknown): Message[] | undefined {
  const prompt = parseJsonish(value);
  if (typeof prompt === 'string') return [{ role: 'user', parts: [{ type: 'text', content: prompt }] }];
  if (typeof prompt !== 'object' || prompt === null || Array.isArray(prompt)) return messagesFrom(prompt);
  const { system, prompt: text, messages } = prompt as Record<string, unknown>;
  const result: Message[] = [];
  if (typeof system === 'string') result.push({ role: 'system', parts: [{ type: 'text', content: system }] });
  if (Array.isArray(messages)) result.push(...(messagesFrom(messages) ?? []));
  if (typeof text === 'string') result.push({ role: 'user', parts: [{ type: 'text', content: text }] });
  else if (Array.isArray(text)) result.push(...(messagesFrom(text) ?? []));
  return result;
}

/** The response of a root or step span as one assistant message, or undefined when none is recorded. */
function responseMessages(attributes: Attributes): Message[] | undefined {
  const text = str(attributes, AI_RESPONSE_TEXT) ?? str(attributes, AI_RESULT_TEXT);
  const object = str(attributes, AI_RESPONSE_OBJECT) ?? str(attributes, AI_RESULT_OBJECT);
  const reasoning = str(attributes, AI_RESPONSE_REASONING);
  const toolCalls = parseJsonish(attributes[AI_RESPONSE_TOOL_CALLS] ?? attributes[AI_RESULT_TOOL_CALLS]);
  const parts: MessagePart[] = [];
  if (reasoning !== undefined) parts.push({ type: 'reasoning', content: reasoning });
  if (text !== undefined) parts.push({ type: 'text', content: text });
  else if (object !== undefined) parts.push({ type: 'text', content: object });
  if (Array.isArray(toolCalls)) {
    for (const call of toolCalls) {
      const part = toPart(typeof call === 'object' && call !== null ? { ...call, type: 'tool-call' } : call);
      if (part) parts.push(part);
    }
  }
  if (parts.length === 0) return undefined;
  const finishReason = str(attributes, AI_RESPONSE_FINISH_REASON) ?? str(attributes, AI_FINISH_REASON);
  const message = toMessage({ role: 'assistant', parts, finish_reason: finishReason });
  return message ? [message] : undefined;
}
