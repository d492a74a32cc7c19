/**
 * Readers for the fields of an OTLP/JSON body, with the deviations from proto3 JSON that the OTLP
 * specification requires: ids are case-insensitive hex (not base64), 64-bit integers arrive as
 * decimal strings or numbers, enums are integers, null means unset. A wrong shape throws JsonShapeError
 * with the path of the offending field, relative to where it is caught; enclosing readers prefix
 * their own segment on the way up (`within`), so paths cost nothing on the good path.
 */

export type JsonObject = Record<string, unknown>;

/** A field of the wrong shape. The span decoder turns it into a rejection, others into a 400. */
export class JsonShapeError extends Error {
  /** `attributes[2].value.intValue`; empty when the problem is the value being read itself. */
  readonly path: string;
  readonly problem: string;
  constructor(path: string, problem: string) {
    super(path === '' ? problem : `${path} ${problem}`);
    this.name = 'JsonShapeError';
    this.path = path;
    this.problem = problem;
  }

  /** The same problem seen from the enclosing value: `segment` is `attributes[2]` or `value`. */
  within(segment: string): JsonShapeError {
    if (this.path === '') return new JsonShapeError(segment, this.problem);
    return new JsonShapeError(
      this.path.startsWith('[') ? segment + this.path : `${segment}.${this.path}`,
      this.problem,
    );
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An optional object field: null or absent is undefined. */
export function readObject(value: unknown, field: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new JsonShapeError(field, `must be an object (got ${describe(value)})`);
  return value;
}

/** An optional repeated field: null or absent is empty. */
export function readArray(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return EMPTY;
  if (!Array.isArray(value)) throw new JsonShapeError(field, `must be an array (got ${describe(value)})`);
  return value;
}
const EMPTY: unknown[] = [];

export function readString(value: unknown, field: string): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  throw new JsonShapeError(field, `must be a string (got ${describe(value)})`);
}

/** An int64/uint64/fixed64: a decimal string or a number, as a number (exact up to 2^53). */
export function readInt64(value: unknown, field: string): number {
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return value;
  } else if (typeof value === 'string') {
    const number = Number(value);
    if (value.trim() !== '' && Number.isInteger(number)) return number;
  } else if (value === undefined || value === null) {
    return 0;
  }
  throw new JsonShapeError(field, `must be an integer as a decimal string or a number (got ${describe(value)})`);
}

/** A uint32 (flags, counts): a number, or a decimal string from lenient senders. */
export function readUint32(value: unknown, field: string): number {
  const number = readInt64(value, field);
  if (number < 0 || number > 0xffffffff)
    throw new JsonShapeError(field, `must fit in 32 unsigned bits (got ${number})`);
  return number;
}

/** A double: a number, or "NaN"/"Infinity"/"-Infinity" and numeric strings as proto3 JSON allows. */
export function readDouble(value: unknown, field: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value);
    if (!Number.isNaN(number) || value === 'NaN') return number;
  }
  if (value === undefined || value === null) return 0;
  throw new JsonShapeError(field, `must be a number (got ${describe(value)})`);
}

/**
 * An enum: the OTLP specification says integers; numeric strings and the proto names are also taken,
 * because refusing a span for `"SPAN_KIND_SERVER"` would help nobody.
 */
export function readEnum(value: unknown, field: string, names: Readonly<Record<string, number>>): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (value === undefined || value === null) return 0;
  if (typeof value === 'string') {
    const named = names[value];
    if (named !== undefined) return named;
    const number = Number(value);
    if (value.trim() !== '' && Number.isInteger(number)) return number;
  }
  throw new JsonShapeError(field, `must be an enum integer (got ${describe(value)})`);
}

const HEX = /^[0-9a-fA-F]+$/;
const ZERO_IDS = new Set(['0'.repeat(16), '0'.repeat(32)]);

/**
 * A trace or span id: hex of exactly `hexLength` characters, any case, returned lowercase.
 * Absent or "" is undefined (the caller decides whether that is allowed).
 */
export function readHexId(value: unknown, field: string, hexLength: number): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || value.length !== hexLength || !HEX.test(value)) {
    const hint = looksLikeBase64Id(value, hexLength / 2) ? ' (OTLP/JSON ids are hex, not base64)' : '';
    throw new JsonShapeError(field, `must be ${hexLength} hex characters${hint}`);
  }
  const hex = value.toLowerCase();
  if (ZERO_IDS.has(hex)) throw new JsonShapeError(field, 'must not be all zeros');
  return hex;
}

/** Standard proto3 JSON would have sent base64: say so, it is the likely mistake. */
function looksLikeBase64Id(value: unknown, bytes: number): boolean {
  return (
    typeof value === 'string' && /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === bytes
  );
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}
