/**
 * Vercel AI SDK telemetry (otel-genai.md §4.3), recognised by span name:
 * - `ai.generateText` / `ai.streamText` / `ai.generateObject` / `ai.streamObject`: the invocation;
 *   `ai.prompt` = `{system?, prompt?, messages?}`, the answer in `ai.response.text` /
 *   `.toolCalls` / `.object` (≤ v3: `ai.result.*`), totals in `ai.usage.*`;
 * - `<root>.doGenerate` / `<root>.doStream`: one model call per step; `ai.prompt.messages`, the
 *   step's `ai.response.*`, per-step counts in `gen_ai.usage.*` (and `ai.usage.*`);
 * - `ai.toolCall`: `ai.toolCall.name` / `.id` / `.args` / `.result`.
 * Token names: `inputTokens` / `outputTokens` (v5+), `promptTokens` / `completionTokens` (v4).
 */
import type { Message, MessagePart, ToolCall } from '../../../../src/model/records.ts';
import type { Attributes, SpanData } from '../../../model/span.ts';
import { errorTextOf, num, parseJsonValue, parseJsonish, str } from './attributes.ts';
import { messagesFrom, toMessage, toPart, unwrapResult } from './messages.ts';
import { NONE, once, usageOf, type SpanRole, type SpanView } from './span-view.ts';

const ROOT_SPANS: ReadonlySet<string> = new Set([
  'ai.generateText',
  'ai.streamText',
  'ai.generateObject',
  'ai.streamObject',
]);

export function isVercelSpan(span: SpanData): boolean {
  return span.name.startsWith('ai.') || typeof span.attributes['ai.operationId'] === 'string';
}

function vercelRole(span: SpanData): SpanRole {
  const name =
    typeof span.attributes['ai.operationId'] === 'string' ? (span.attributes['ai.operationId'] as string) : span.name;
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
      role === 'invocation' ? rootPrompt(attributes['ai.prompt']) : messagesFrom(attributes['ai.prompt.messages']),
    ),
    output: once(() => responseMessages(attributes)),
    plainInput: NONE,
    plainOutput: NONE,
    usage: usageOf(
      num(attributes, 'gen_ai.usage.input_tokens') ??
        num(attributes, 'ai.usage.inputTokens') ??
        num(attributes, 'ai.usage.promptTokens'),
      num(attributes, 'gen_ai.usage.output_tokens') ??
        num(attributes, 'ai.usage.outputTokens') ??
        num(attributes, 'ai.usage.completionTokens'),
    ),
    model:
      str(attributes, 'ai.response.model') ??
      str(attributes, 'gen_ai.response.model') ??
      str(attributes, 'ai.model.id') ??
      str(attributes, 'gen_ai.request.model'),
    provider: str(attributes, 'ai.model.provider') ?? str(attributes, 'gen_ai.system'),
    tool: role === 'tool' ? vercelTool(span) : undefined,
  };
}

function vercelTool(span: SpanData): ToolCall {
  const attributes = span.attributes;
  const call: ToolCall = { name: str(attributes, 'ai.toolCall.name') ?? span.name };
  const callId = str(attributes, 'ai.toolCall.id');
  if (callId !== undefined) call.callId = callId;
  const args = attributes['ai.toolCall.args'] ?? attributes['ai.toolCall.input'];
  if (args !== undefined) call.arguments = parseJsonValue(args);
  const result = attributes['ai.toolCall.result'] ?? attributes['ai.toolCall.output'];
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
  const text = str(attributes, 'ai.response.text') ?? str(attributes, 'ai.result.text');
  const object = str(attributes, 'ai.response.object') ?? str(attributes, 'ai.result.object');
  const reasoning = str(attributes, 'ai.response.reasoning');
  const toolCalls = parseJsonish(attributes['ai.response.toolCalls'] ?? attributes['ai.result.toolCalls']);
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
  const finishReason = str(attributes, 'ai.response.finishReason') ?? str(attributes, 'ai.finishReason');
  const message = toMessage({ role: 'assistant', parts, finish_reason: finishReason });
  return message ? [message] : undefined;
}
