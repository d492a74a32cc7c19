/**
 * Typed reads of span attribute values, shared by every dialect reader (the names are in
 * src/model/attributes.ts). Values arrive as the OTLP decoders produce them: 64-bit integers may
 * be numbers or decimal strings, "any" values may be JSON strings or structured (kvlist → object,
 * array → array).
 */
import type { AttributeValue, Attributes, SpanData } from '../../../model/span.ts';
import { ERROR_TYPE, EXCEPTION_MESSAGE, EXCEPTION_TYPE } from '../../../../src/model/attributes.ts';
import { EXCEPTION_EVENT } from '../../../../src/model/telemetry-names.ts';

export function str(attributes: Attributes, key: string): string | undefined {
  const value = attributes[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A finite number, also from a decimal string (OTLP/JSON `intValue`). */
export function num(attributes: Attributes, key: string): number | undefined {
  const value = attributes[key];
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** A string array, also from a single string or a JSON array string. */
export function strings(attributes: Attributes, key: string): string[] | undefined {
  const value = parseJsonish(attributes[key]);
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is string => typeof item === 'string');
}

/**
 * An "any" attribute as a value: a string that holds a JSON object or array is parsed, anything
 * else is returned as it is (a plain string stays a string). Bytes are not content: undefined.
 */
export function parseJsonish(value: AttributeValue | unknown): unknown {
  if (value instanceof Uint8Array) return undefined;
  if (typeof value !== 'string') return value;
  const first = firstNonSpace(value);
  if (first !== '[' && first !== '{') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Tool arguments and results: instrumentations "SHOULD do best effort to deserialize" strings, so
 * any JSON (also a quoted string or a number) is parsed; text that is not JSON stays text.
 */
export function parseJsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return undefined;
  if (typeof value !== 'string') return value;
  const first = firstNonSpace(value);
  if (first === undefined || !'[{"-0123456789tfn'.includes(first)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function firstNonSpace(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== ' ' && c !== '\n' && c !== '\r' && c !== '\t') return c;
  }
  return undefined;
}

/**
 * The entries of a flattened list (`<prefix>.<i>.<rest>`), in index order, each as a record of
 * `<rest>` → value. Used for OpenInference `llm.input_messages.N.message.*` and legacy
 * `gen_ai.prompt.N.*`; nested lists (`tool_calls.J.*`) are read by calling this on an entry.
 */
export function indexed(attributes: Record<string, unknown>, prefix: string): Array<Record<string, unknown>> {
  const lead = `${prefix}.`;
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const key in attributes) {
    if (!key.startsWith(lead)) continue;
    const dot = key.indexOf('.', lead.length);
    if (dot < 0) continue;
    const index = Number(key.slice(lead.length, dot));
    if (!Number.isInteger(index) || index < 0) continue;
    let entry = byIndex.get(index);
    if (!entry) {
      entry = {};
      byIndex.set(index, entry);
    }
    entry[key.slice(dot + 1)] = attributes[key];
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, entry]) => entry);
}

/** True when some attribute key starts with `prefix.` (a flattened list is present). */
export function hasIndexed(attributes: Attributes, prefix: string): boolean {
  const lead = `${prefix}.`;
  for (const key in attributes) if (key.startsWith(lead)) return true;
  return false;
}

/** A readable error for a failed span: status message, else an exception event, else error.type. */
export function errorTextOf(span: SpanData): string | undefined {
  if (span.status.code !== 2 && str(span.attributes, ERROR_TYPE) === undefined) return undefined;
  return (span.status.message || undefined) ?? exceptionMessageOf(span) ?? str(span.attributes, ERROR_TYPE) ?? 'error';
}

/** The message (else the type) of the span's last `exception` event. */
export function exceptionMessageOf(span: SpanData): string | undefined {
  for (let i = span.events.length - 1; i >= 0; i--) {
    const event = span.events[i];
    if (event.name !== EXCEPTION_EVENT) continue;
    const message = str(event.attributes, EXCEPTION_MESSAGE) ?? str(event.attributes, EXCEPTION_TYPE);
    if (message !== undefined) return message;
  }
  return undefined;
}
