/** JSON values as they travel through transcripts, tool calls and the remote-agent wire format. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Compact JSON (no spaces), as the transcript renderer and the wire format use. */
export function compactJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** A deep copy of a JSON value (structuredClone keeps only what JSON can carry here). */
export function cloneJson<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}
