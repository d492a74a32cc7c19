/**
 * Message parsing shared by the dialect readers: everything ends up in the OTel GenAI shape
 * (`{role, parts[], name?, finishReason?}` with `text` / `tool_call` / `tool_call_response` /
 * `reasoning` parts). Input is tolerated in every shape seen in the wild: GenAI messages as JSON
 * strings or structured values, `content` strings instead of `parts`, OpenAI-style `tool_calls`,
 * Anthropic content blocks and Vercel AI SDK prompt parts.
 */
import type { Message, MessagePart } from '../../../../src/model/records.ts';
import { parseJsonValue, parseJsonish } from './attribute-values.ts';

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * A message list from an attribute value (`gen_ai.input.messages`, `gen_ai.output.messages`, ...):
 * a JSON string or a structured array. Undefined when the value is absent or not a list.
 */
export function messagesFrom(value: unknown): Message[] | undefined {
  const parsed = parseJsonish(value);
  if (!Array.isArray(parsed)) return undefined;
  const messages: Message[] = [];
  for (const raw of parsed) {
    const message = toMessage(raw);
    if (message) messages.push(message);
  }
  return messages;
}

/** One message in any supported shape, or undefined when it is not a message. */
export function toMessage(raw: unknown): Message | undefined {
  if (!isObj(raw)) return undefined;
  const role = text(raw.role) ?? 'user';
  const parts = raw.parts !== undefined ? toParts(raw.parts) : toParts(raw.content);
  // OpenAI-style assistant tool calls beside the content.
  if (Array.isArray(raw.tool_calls)) {
    for (const call of raw.tool_calls) {
      const part = openAiToolCall(call);
      if (part) parts.push(part);
    }
  }
  // OpenAI-style tool message: the content is the result of the call it names.
  const toolCallId = text(raw.tool_call_id);
  if (toolCallId !== undefined && !parts.some((part) => part.type === 'tool_call_response')) {
    const response = unwrapResult(parts.splice(0, parts.length));
    parts.push({ type: 'tool_call_response', id: toolCallId, response });
  }
  const message: Message = { role, parts };
  const name = text(raw.name);
  if (name) message.name = name;
  const finishReason = text(raw.finish_reason) ?? text(raw.finishReason);
  if (finishReason) message.finishReason = finishReason;
  return message;
}

/**
 * Message content as parts: a list holds parts or content blocks; a string is one text part, unless
 * it is a JSON list of typed blocks (see `partsFromContent`). Other JSON text stays text: an answer
 * may well be a JSON object.
 */
export function toParts(content: unknown): MessagePart[] {
  if (typeof content === 'string') return partsFromContent(content);
  const value = parseJsonish(content);
  if (Array.isArray(value)) {
    const parts: MessagePart[] = [];
    for (const raw of value) {
      const part = toPart(raw);
      if (part) parts.push(part);
    }
    return parts;
  }
  if (isObj(value)) {
    const part = toPart(value);
    return part ? [part] : [];
  }
  return [];
}

/** Text content that may be a JSON list of content blocks (OpenLLMetry writes rich content so). */
export function partsFromContent(content: unknown): MessagePart[] {
  if (typeof content === 'string') {
    const parsed = parseJsonish(content);
    if (Array.isArray(parsed) && parsed.every((block) => isObj(block) && typeof block.type === 'string')) {
      return toParts(parsed);
    }
    return content === '' ? [] : [{ type: 'text', content }];
  }
  return toParts(content);
}

/** One part in the GenAI shape, from a GenAI part, an Anthropic block or a Vercel prompt part. */
export function toPart(raw: unknown): MessagePart | undefined {
  if (typeof raw === 'string') return { type: 'text', content: raw };
  if (!isObj(raw)) return undefined;
  const type = text(raw.type);
  switch (type) {
    case 'text':
    case undefined: {
      const content = text(raw.content) ?? text(raw.text);
      return content === undefined ? (type ? withoutBytes(raw, type) : undefined) : { type: 'text', content };
    }
    case 'reasoning':
    case 'thinking': {
      const content = text(raw.content) ?? text(raw.text) ?? text(raw.thinking) ?? '';
      return { type: 'reasoning', content };
    }
    case 'tool_call':
    case 'tool_use':
    case 'tool-call':
    case 'function_call': {
      const name = text(raw.name) ?? text(raw.toolName) ?? '';
      const id = text(raw.id) ?? text(raw.toolCallId) ?? text(raw.call_id);
      const args = raw.arguments ?? raw.input ?? raw.args;
      return {
        type: 'tool_call',
        ...(id !== undefined ? { id } : undefined),
        name,
        ...(args !== undefined ? { arguments: parseJsonValue(args) } : undefined),
      };
    }
    case 'tool_call_response':
    case 'tool_result':
    case 'tool-result':
    case 'function_call_output': {
      const id = text(raw.id) ?? text(raw.tool_use_id) ?? text(raw.toolCallId) ?? text(raw.call_id);
      const response = raw.response ?? raw.result ?? raw.output ?? raw.content;
      return {
        type: 'tool_call_response',
        ...(id !== undefined ? { id } : undefined),
        response: unwrapResult(response),
      };
    }
    default:
      return withoutBytes(raw, type);
  }
}

/** Any other part as it is, minus raw bytes (a structured blob's content), which a record cannot hold as JSON. */
function withoutBytes(raw: Obj, type: string): MessagePart {
  const part: Record<string, unknown> = {};
  for (const key in raw) if (!(raw[key] instanceof Uint8Array)) part[key] = raw[key];
  part.type = type;
  return part as MessagePart;
}

function openAiToolCall(raw: unknown): MessagePart | undefined {
  if (!isObj(raw)) return undefined;
  const fn = isObj(raw.function) ? raw.function : raw;
  const name = text(fn.name);
  if (name === undefined) return undefined;
  const id = text(raw.id);
  const args = fn.arguments ?? fn.input;
  return {
    type: 'tool_call',
    ...(id !== undefined ? { id } : undefined),
    name,
    ...(args !== undefined ? { arguments: parseJsonValue(args) } : undefined),
  };
}

/** The Vercel AI SDK's tool-result output kinds (`{type, value}`). */
const VERCEL_OUTPUT_TYPES: ReadonlySet<string> = new Set(['text', 'json', 'error-text', 'error-json', 'content']);

/**
 * A tool result as evaluators want to read it: a list of text blocks (Anthropic tool results,
 * GenAI text parts) becomes its text, a Vercel `{type, value}` output becomes its value. JSON
 * text is parsed, also when it is the text of those blocks or that value (a tool that returns
 * `JSON.stringify(order)` has its order read back); plain text stays a string; anything else is
 * kept as it is. One level only: the text of blocks is not unwrapped again.
 */
export function unwrapResult(value: unknown): unknown {
  const parsed = parseJsonValue(value);
  if (Array.isArray(parsed) && parsed.length > 0) {
    let joined = '';
    for (const block of parsed) {
      if (!isObj(block) || block.type !== 'text') return parsed;
      const piece = text(block.text) ?? text(block.content);
      if (piece === undefined) return parsed;
      joined += piece;
    }
    return parseJsonValue(joined);
  }
  if (
    isObj(parsed) &&
    VERCEL_OUTPUT_TYPES.has(parsed.type as string) &&
    'value' in parsed &&
    Object.keys(parsed).length === 2
  ) {
    return parseJsonValue(parsed.value);
  }
  return parsed;
}

/** The text parts of `parts`, joined. */
export function textOf(parts: readonly MessagePart[]): string {
  let joined = '';
  for (const part of parts) {
    if (part.type === 'text' && typeof part.content === 'string') joined += part.content;
  }
  return joined;
}

/** Sets each message's finish reason from `gen_ai.response.finish_reasons` (one per choice) when it has none. */
export function withFinishReasons(messages: Message[], reasons: readonly string[] | undefined): Message[] {
  if (!reasons || reasons.length === 0) return messages;
  messages.forEach((message, index) => {
    const reason = reasons[index] ?? (messages.length === 1 ? reasons[0] : undefined);
    if (!message.finishReason && reason) message.finishReason = reason;
  });
  return messages;
}

/** A one-message list holding `value` as text (dialect inputs/outputs such as `input.value`). */
export function textMessage(role: string, value: unknown): Message[] | undefined {
  if (value === undefined || value === null) return undefined;
  const content = typeof value === 'string' ? value : JSON.stringify(value);
  if (content === '' || content === undefined) return undefined;
  return [{ role, parts: [{ type: 'text', content }] }];
}
