/**
 * The wire-level pieces of the protobuf decoder. protobufjs's `Reader` (a well-kept library) reads
 * varints, strings and bytes; this file adds what the OTLP decoder needs on top: sub-message
 * bounds, 64-bit integers as plain numbers (the Reader returns `Long` objects, one allocation per
 * timestamp), and errors that say where the body went wrong.
 */
import protobuf from 'protobufjs/minimal.js';
import { OtlpDecodeError } from '../otlp-decode-error.ts';

export type WireReader = protobuf.Reader;

export const WireType = { VARINT: 0, I64: 1, LEN: 2, I32: 5 } as const;
const WIRE_TYPE_NAMES = ['varint', 'i64', 'len', 'group start', 'group end', 'i32', 'invalid', 'invalid'];

const TWO_POW_32 = 4294967296;

export function createWireReader(body: Uint8Array): WireReader {
  // A Buffer view (no copy) makes protobufjs pick its BufferReader, which decodes strings natively.
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return protobuf.Reader.create(buffer);
}

/**
 * Reads a length prefix and narrows the reader to that sub-message, so that no read inside it can
 * run past its end. Returns the outer limit for `leaveMessage`.
 */
export function enterMessage(r: WireReader): number {
  const size = r.uint32();
  const end = r.pos + size;
  if (end > r.len) throw truncated(r);
  const outer = r.len;
  r.len = end;
  return outer;
}

export function leaveMessage(r: WireReader, outer: number): void {
  r.len = outer;
}

/** Skips a length-delimited field and returns where its bytes start (they end at `r.pos`). */
export function skipBytes(r: WireReader): number {
  const size = r.uint32();
  const start = r.pos;
  if (start + size > r.len) throw truncated(r);
  r.pos = start + size;
  return start;
}

/** A fixed64 (timestamps) as a number: exact up to 2^53, within 256 ns for today's nanosecond times. */
export function readFixed64(r: WireReader): number {
  const pos = r.pos;
  if (pos + 8 > r.len) throw truncated(r);
  const b = r.buf;
  const lo = (b[pos] | (b[pos + 1] << 8) | (b[pos + 2] << 16) | (b[pos + 3] << 24)) >>> 0;
  const hi = (b[pos + 4] | (b[pos + 5] << 8) | (b[pos + 6] << 16) | (b[pos + 7] << 24)) >>> 0;
  r.pos = pos + 8;
  return hi * TWO_POW_32 + lo;
}

/** Steps over a fixed64 with the checks `readFixed64` makes. */
export function skipFixed64(r: WireReader): void {
  if (r.pos + 8 > r.len) throw truncated(r);
  r.pos += 8;
}

/** A varint int64 (two's complement) as a number; small negative values stay exact. */
export function readInt64(r: WireReader): number {
  const b = r.buf;
  const len = r.len;
  let pos = r.pos;
  let lo = 0;
  let hi = 0;
  let byte = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= len) throw truncated(r);
    byte = b[pos++];
    lo |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      r.pos = pos;
      return lo;
    }
  }
  if (pos >= len) throw truncated(r);
  byte = b[pos++];
  lo |= (byte & 0x0f) << 28;
  hi = (byte & 0x7f) >> 4;
  if (byte >= 0x80) {
    for (let shift = 3; ; shift += 7) {
      if (shift > 31) throw new OtlpDecodeError(`protobuf: invalid varint at byte ${pos} (longer than 10 bytes)`);
      if (pos >= len) throw truncated(r);
      byte = b[pos++];
      hi |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
  }
  r.pos = pos;
  return (hi | 0) * TWO_POW_32 + (lo >>> 0);
}

/**
 * Attribute keys repeat on every span of a batch. Decoding each one afresh costs a string
 * allocation plus V8 internalizing it when it becomes a property name; returning the string made
 * for the same bytes last time skips both (measured: ~320k -> ~430k spans/s on
 * the body described in decode-protobuf.ts).
 * A small direct-mapped cache of keys up to 64 bytes; a miss just replaces the slot.
 */
const KEY_CACHE_SLOTS = 1024;
const MAX_CACHED_KEY_BYTES = 64;
const cachedKeyBytes: (Uint8Array | undefined)[] = new Array(KEY_CACHE_SLOTS).fill(undefined);
const cachedKeys: string[] = new Array(KEY_CACHE_SLOTS).fill('');

export function readKeyString(r: WireReader): string {
  const length = r.uint32();
  const start = r.pos;
  const end = start + length;
  if (end > r.len) throw truncated(r);
  r.pos = end;
  const buf = r.buf as Buffer;
  if (length > MAX_CACHED_KEY_BYTES) return buf.toString('utf8', start, end);
  if (length === 0) return '';
  // From the length and four of the bytes (keys sharing a prefix differ near their end): the bytes
  // are all compared below, so a collision costs a miss, never a wrong key.
  const last = end - 1;
  let hash = Math.imul(length, 0x9e3779b1) ^ buf[start];
  hash = Math.imul(hash ^ buf[last], 16777619);
  hash = Math.imul(hash ^ buf[last - (length >> 1)], 16777619);
  hash = Math.imul(hash ^ buf[last - (length >> 2)], 16777619);
  hash ^= hash >>> 13;
  const slot = (hash >>> 0) & (KEY_CACHE_SLOTS - 1);
  const cached = cachedKeyBytes[slot];
  if (cached !== undefined && cached.length === length) {
    let same = true;
    for (let i = 0; i < length; i++) {
      if (cached[i] !== buf[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return cachedKeys[slot];
  }
  const key = buf.toString('utf8', start, end);
  const bytes = new Uint8Array(length);
  bytes.set(buf.subarray(start, end));
  cachedKeyBytes[slot] = bytes;
  cachedKeys[slot] = key;
  return key;
}

/**
 * A string field read as `r.string()` reads it, with its checks and its errors, but shared like a
 * key when it is short (`readKeyString`): span names and the attribute values the receiver decodes
 * for the spans' heads (operation, agent, conversation) repeat from span to span. Making each one
 * afresh was ~10 % of the receiver's check of a request.
 */
export function readSharedString(r: WireReader): string {
  const at = r.pos;
  const length = r.uint32();
  const fits = r.pos + length <= r.len;
  r.pos = at;
  return fits ? readKeyString(r) : r.string();
}

/** Steps over a key string with the same checks as `readKeyString`, without making the string. */
export function skipKeyString(r: WireReader): void {
  const end = r.uint32() + r.pos;
  if (end > r.len) throw truncated(r);
  r.pos = end;
}

/** Skips a field this decoder does not use (unknown fields are allowed; field number 0 is not). */
export function skipField(r: WireReader, tag: number): void {
  if (tag >>> 3 === 0) {
    throw new OtlpDecodeError(`protobuf: field number 0 at byte ${r.pos} (is this an ExportTraceServiceRequest?)`);
  }
  r.skipType(tag & 7);
}

export function truncated(r: WireReader): OtlpDecodeError {
  return new OtlpDecodeError(`protobuf: truncated message at byte ${r.pos} (a field runs past the end of its message)`);
}

export function wrongWireType(r: WireReader, field: string, got: number, expected: number): OtlpDecodeError {
  return new OtlpDecodeError(
    `protobuf: ${field} has wire type ${WIRE_TYPE_NAMES[got]} (${got}) at byte ${r.pos}, expected ` +
      `${WIRE_TYPE_NAMES[expected]} (${expected}) (is this an ExportTraceServiceRequest?)`,
    { field },
  );
}

/**
 * Turns whatever the protobufjs Reader threw (a RangeError for reads past the end, an Error for a
 * bad tag or wire type) into an OtlpDecodeError that says where. Nesting depth is bounded by the
 * decoder, so a RangeError here is never a stack overflow.
 */
export function toDecodeError(r: WireReader, error: unknown): OtlpDecodeError {
  if (error instanceof OtlpDecodeError) return error;
  if (error instanceof RangeError) {
    return new OtlpDecodeError(`protobuf: truncated message at byte ${r.pos} (the body ends inside a field)`, {
      cause: error,
    });
  }
  const what = error instanceof Error ? error.message : String(error);
  return new OtlpDecodeError(`protobuf: ${what} at byte ${r.pos} (is this an ExportTraceServiceRequest?)`, {
    cause: error,
  });
}
