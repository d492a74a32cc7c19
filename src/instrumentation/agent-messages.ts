/**
 * An agent's input and reply in the OTel GenAI message shape (`gen_ai.input.messages` /
 * `gen_ai.output.messages`), and their encoding as span attributes: JSON strings, since OTel JS
 * span attributes cannot hold maps, bounded in size so that content never grows the export queue
 * without limit.
 */

/** A part of a message, discriminated by `type` (semconv `gen-ai-input-messages.json`). */
export type AgentMessagePart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id?: string | null; name: string; arguments?: unknown }
  | { type: 'tool_call_response'; id?: string | null; response: unknown }
  | { type: 'reasoning'; content: string }
  | { type: string; [key: string]: unknown };

/** One message: `role` is `system`, `user`, `assistant`, `tool` or any other string. */
export interface AgentMessage {
  role: string;
  parts: AgentMessagePart[];
  name?: string | null;
  /** Deprecated in the newest semconv (finish reasons go in `gen_ai.response.finish_reasons`), still read. */
  finish_reason?: string;
}

/** What the agent is asked: a user text, or messages. */
export type AgentInput = string | AgentMessage[];

/** What the agent answers: an assistant text, or messages. */
export type AgentOutput = string | AgentMessage[];

/** Messages for `value` (a text becomes one message of `role`), or undefined when it is neither. */
export function toMessages(value: unknown, role: 'user' | 'assistant'): AgentMessage[] | undefined {
  if (typeof value === 'string') return [{ role, parts: [{ type: 'text', content: value }] }];
  if (isMessage(value)) return [value];
  if (Array.isArray(value) && value.length > 0 && value.every(isMessage)) return value;
  return undefined;
}

function isMessage(value: unknown): value is AgentMessage {
  if (typeof value !== 'object' || value === null) return false;
  const { role, parts } = value as { role?: unknown; parts?: unknown };
  return typeof role === 'string' && Array.isArray(parts);
}

export interface EncodedMessages {
  json: string;
  /** True when older messages or the end of long texts were left out to fit the limit. */
  truncated: boolean;
}

const ELLIPSIS = '…';

/**
 * `messages` as a JSON string of at most about `maxBytes` UTF-8 bytes. When the whole list does not
 * fit, the most recent messages that fit are kept; when not even the last one fits, its texts are
 * shortened. Returns undefined when the messages cannot be encoded (a cycle, a BigInt).
 */
export function encodeMessages(messages: AgentMessage[], maxBytes: number): EncodedMessages | undefined {
  let json: string;
  try {
    json = JSON.stringify(messages);
  } catch {
    return undefined;
  }
  if (fits(json, maxBytes)) return { json, truncated: false };
  // Drop the oldest messages first: the latest turn says most about this invocation.
  for (let start = 1; start < messages.length; start++) {
    const kept = JSON.stringify(messages.slice(start));
    if (fits(kept, maxBytes)) return { json: kept, truncated: true };
  }
  const last = messages[messages.length - 1];
  if (last === undefined) return undefined;
  const shortened = JSON.stringify([shortenTexts(last, maxBytes)]);
  return fits(shortened, maxBytes) ? { json: shortened, truncated: true } : undefined;
}

/** `message` with each string `content` cut so that all of them share about `maxBytes`. */
function shortenTexts(message: AgentMessage, maxBytes: number): AgentMessage {
  const texts = message.parts.filter((part) => typeof textOf(part) === 'string').length;
  // Room for the JSON around the texts; a character may take up to 3 bytes.
  const budget = Math.max(0, Math.floor((maxBytes - 256 * (message.parts.length + 1)) / 3 / Math.max(1, texts)));
  return {
    ...message,
    parts: message.parts.map((part) => {
      const text = textOf(part);
      if (text === undefined || text.length <= budget) return textOnly(part);
      return { type: part.type, content: text.slice(0, budget) + ELLIPSIS };
    }),
  };
}

function textOf(part: AgentMessagePart): string | undefined {
  const content = (part as { content?: unknown }).content;
  return typeof content === 'string' ? content : undefined;
}

/** A part without its bulky non-text fields (arguments, responses), which cannot be cut safely. */
function textOnly(part: AgentMessagePart): AgentMessagePart {
  if (part.type === 'tool_call')
    return { type: 'tool_call', id: part.id as string | undefined, name: String(part.name) };
  if (part.type === 'tool_call_response')
    return { type: 'tool_call_response', id: part.id as string | undefined, response: ELLIPSIS };
  return part;
}

function fits(json: string, maxBytes: number): boolean {
  // A UTF-16 unit is at most 3 UTF-8 bytes: skip counting when even that fits.
  return json.length * 3 <= maxBytes || Buffer.byteLength(json, 'utf8') <= maxBytes;
}
