/**
 * Mock tools for the in-process agent. A tool acts on the run's context (the scenario's `context`,
 * copied per run): look-ups read it, actions change it, so a cancelled booking stays cancelled for
 * later look-ups and `expect_context` can check the final state.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../judge/json-value.ts';

export interface Tool {
  name: string;
  description: string;
  /** JSON schema of the arguments (an object schema). */
  inputSchema: JsonObject;
  /** Returns the result; a thrown error becomes the call's error. May change `context`. */
  run(args: JsonObject, context: JsonObject): JsonValue | Promise<JsonValue>;
}

/** An object schema: `{ name: 'description' }` properties (strings unless listed in `numbers`). */
export function objectSchema(
  properties: Record<string, string>,
  required: string[] = [],
  numbers: string[] = [],
  enums: Record<string, string[]> = {},
): JsonObject {
  const props: JsonObject = {};
  for (const [key, description] of Object.entries(properties)) {
    props[key] = {
      type: numbers.includes(key) ? 'number' : 'string',
      description,
      ...(enums[key] ? { enum: enums[key] } : {}),
    };
  }
  return { type: 'object', properties: props, required };
}

/** A string argument ('' when missing; numbers and booleans are stringified). */
export function text(args: JsonObject, key: string): string {
  const value = args[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** A number argument (0 when missing or not numeric; numeric strings are read). */
export function amount(args: JsonObject, key: string): number {
  const value = args[key];
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value.replace(/[$,]/g, ''))))
    return Number(value.replace(/[$,]/g, ''));
  return 0;
}

/** A keyed table of the context (`flights`, `bookings`, ...); created empty when `create` is set. */
export function table(context: JsonObject, key: string, create = false): Record<string, JsonObject> {
  const value = context[key];
  if (isJsonObject(value)) return value as Record<string, JsonObject>;
  if (!create) return {};
  const fresh: Record<string, JsonObject> = {};
  context[key] = fresh;
  return fresh;
}

/** A list in the context, created when missing. */
export function list(context: JsonObject, key: string): JsonValue[] {
  const value = context[key];
  if (Array.isArray(value)) return value;
  const fresh: JsonValue[] = [];
  context[key] = fresh;
  return fresh;
}

/** Money as the tools print it: two decimals. */
export function money(value: number): string {
  return value.toFixed(2);
}
