/**
 * The tools of a recorded conversation as recorded tools: one per tool name, in the order of first
 * use, with one recording per call in call order. A call repeated with the same arguments and the
 * same outcome is kept once; when the outcome changed, every call is kept, so the rehearsal answers
 * in the same order. The input schema is inferred from the recorded arguments (their keys and JSON
 * types), since records do not carry tool definitions.
 */
import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, type JsonObject, type JsonValue } from '../../judge/json-value.ts';
import type { InteractionRecord, ToolCall } from '../../model/records.ts';
import type { RecordedToolSpec, ToolRecording } from '../scenario/scenario.ts';

/** What the Messages API accepts as a tool name (as the scenario schema checks it). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface RecordedTools {
  tools: RecordedToolSpec[];
  /** Calls that cannot be rehearsed, one line each (for the scenario's header). */
  skipped: string[];
}

export function recordedToolsOf(interactions: readonly InteractionRecord[]): RecordedTools {
  const byName = new Map<string, ToolRecording[]>();
  const skipped: string[] = [];
  interactions.forEach((record, index) => {
    for (const call of record.toolCalls) {
      const where = `${call.name} call in turn ${index + 1}`;
      if (!TOOL_NAME.test(call.name)) {
        skipped.push(`${where}: the name is not one the Messages API accepts`);
        continue;
      }
      const args = argumentsOf(call.arguments);
      if (args === undefined) {
        skipped.push(`${where}: its arguments are not a mapping (${JSON.stringify(call.arguments)})`);
        continue;
      }
      const recording: ToolRecording =
        call.error !== undefined ? { arguments: args, error: call.error } : { arguments: args, result: resultOf(call) };
      const recordings = byName.get(call.name) ?? [];
      byName.set(call.name, [...recordings, recording]);
    }
  });
  const tools = [...byName].map(
    ([name, recordings]): RecordedToolSpec => ({
      source: 'recorded',
      name,
      description: '',
      inputSchema: inferInputSchema(recordings.map((recording) => recording.arguments)),
      recordings: withoutRepeats(recordings),
    }),
  );
  return { tools, skipped };
}

/** Arguments as a mapping: as recorded, parsed from JSON text, or none at all; undefined for anything else. */
function argumentsOf(value: unknown): JsonObject | undefined {
  if (value === undefined || value === null) return {};
  if (isJsonObject(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isJsonObject(parsed)) return parsed;
    } catch {
      // not JSON: not a mapping either
    }
  }
  return undefined;
}

function resultOf(call: ToolCall): JsonValue {
  return call.result === undefined ? null : (call.result as JsonValue);
}

/** Drops the repeats of arguments whose every recording is the same; keeps the order otherwise. */
function withoutRepeats(recordings: ToolRecording[]): ToolRecording[] {
  const sameArguments = (a: ToolRecording, b: ToolRecording) => isDeepStrictEqual(a.arguments, b.arguments);
  return recordings.filter((recording, index) => {
    const first = recordings.findIndex((other) => sameArguments(other, recording));
    if (first === index) return true;
    const all = recordings.filter((other) => sameArguments(other, recording));
    return !all.every((other) => isDeepStrictEqual(other, all[0]));
  });
}

/** `{type: object, properties: {key: {type}}, required}`: each key's JSON types, required when always given. */
export function inferInputSchema(calls: readonly JsonObject[]): JsonObject {
  const types = new Map<string, string[]>();
  for (const args of calls) {
    for (const [key, value] of Object.entries(args)) {
      const known = types.get(key) ?? [];
      const type = jsonType(value);
      if (!known.includes(type)) known.push(type);
      types.set(key, known);
    }
  }
  if (types.size === 0) return { type: 'object' };
  const properties: JsonObject = {};
  for (const [key, keyTypes] of types) properties[key] = { type: keyTypes.length === 1 ? keyTypes[0] : keyTypes };
  const required = [...types.keys()].filter((key) => calls.every((args) => Object.hasOwn(args, key)));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}
