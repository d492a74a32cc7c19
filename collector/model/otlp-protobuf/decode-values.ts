/**
 * Protobuf decoding of OTLP attribute values (common.proto: KeyValue, AnyValue, ArrayValue,
 * KeyValueList) into the plain values of `SpanData`.
 *
 * The same walk serves three uses, so that they accept and refuse exactly the same bytes: decoding
 * (`decodeKeyValue`), checking without making any value (`checkKeyValue`: what the receiver does
 * before it acknowledges a request, so a stored request always decodes later), and checking while
 * decoding only some keys (`checkKeyValue` with a matcher: the few attributes that decide
 * interactions).
 */
import type { AttributeValue, Attributes } from '../span.ts';
import { OtlpDecodeError } from '../otlp-decode-error.ts';
import {
  WireType,
  enterMessage,
  leaveMessage,
  readInt64,
  readKeyString,
  readSharedString,
  skipBytes,
  skipKeyString,
  skipField,
  wrongWireType,
  type WireReader,
} from './wire.ts';
import { setAttribute } from '../set-attribute.ts';
import { matchKeyString, type KeyMatcher } from './key-matcher.ts';

/** Deeper AnyValue nesting than this is refused: it is never legitimate and would risk the stack. */
const MAX_VALUE_DEPTH = 64;

const { VARINT, I64, LEN } = WireType;

/** What a value walked without `make` is put in: never read, never written. */
const NOTHING: Attributes = Object.freeze({}) as Attributes;
const NO_VALUES: AttributeValue[] = Object.freeze([]) as unknown as AttributeValue[];

/** Decodes one KeyValue message and sets it on `target` (a later duplicate key wins). */
export function decodeKeyValue(r: WireReader, target: Attributes, depth: number): void {
  let key = '';
  let value: AttributeValue = null;
  while (r.pos < r.len) {
    const tag = r.tag();
    const field = tag >>> 3;
    if (field === 1) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'KeyValue.key', tag & 7, LEN);
      key = readKeyString(r);
    } else if (field === 2) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'KeyValue.value', tag & 7, LEN);
      const outer = enterMessage(r);
      value = decodeAnyValue(r, depth, true);
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
  }
  setAttribute(target, key, value);
}

/**
 * Walks one KeyValue message with every check `decodeKeyValue` makes, making nothing; with
 * `target` and `matcher`, a key `matcher` knows is decoded into `target` (a later duplicate wins).
 */
export function checkKeyValue(r: WireReader, depth: number, target?: Attributes, matcher?: KeyMatcher): void {
  let key: string | undefined;
  // Where the last value is, when it was only checked: a key matched after it (legal protobuf, never
  // seen from an SDK) has it decoded at the end.
  let skippedStart = -1;
  let skippedEnd = -1;
  let value: AttributeValue = null;
  while (r.pos < r.len) {
    const tag = r.tag();
    const field = tag >>> 3;
    if (field === 1) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'KeyValue.key', tag & 7, LEN);
      if (matcher === undefined) skipKeyString(r);
      else key = matchKeyString(r, matcher);
    } else if (field === 2) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'KeyValue.value', tag & 7, LEN);
      const outer = enterMessage(r);
      const make = key !== undefined;
      skippedStart = make ? -1 : r.pos;
      skippedEnd = r.len;
      value = decodeAnyValue(r, depth, make, true);
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
  }
  if (target === undefined || key === undefined) return;
  if (skippedStart >= 0) {
    const [pos, len] = [r.pos, r.len];
    r.pos = skippedStart;
    r.len = skippedEnd;
    value = decodeAnyValue(r, depth, true, true);
    [r.pos, r.len] = [pos, len];
  }
  setAttribute(target, key, value);
}

/**
 * An AnyValue: kvlist becomes a plain object, array an array, int64 a number; unset is null.
 * Without `make`, only the checks: strings and bytes are stepped over, and the answer is null.
 */
function decodeAnyValue(r: WireReader, depth: number, make: boolean, shared = false): AttributeValue {
  if (depth > MAX_VALUE_DEPTH) {
    throw new OtlpDecodeError(`protobuf: AnyValue nested deeper than ${MAX_VALUE_DEPTH} levels at byte ${r.pos}`);
  }
  let value: AttributeValue = null;
  while (r.pos < r.len) {
    const tag = r.tag();
    const wireType = tag & 7;
    switch (tag >>> 3) {
      case 1:
        if (wireType !== LEN) throw wrongWireType(r, 'AnyValue.string_value', wireType, LEN);
        if (make) value = shared ? readSharedString(r) : r.string();
        else r.skip(r.size()); // what string() checks, without the string
        break;
      case 2:
        if (wireType !== VARINT) throw wrongWireType(r, 'AnyValue.bool_value', wireType, VARINT);
        value = r.bool();
        break;
      case 3:
        if (wireType !== VARINT) throw wrongWireType(r, 'AnyValue.int_value', wireType, VARINT);
        value = readInt64(r);
        break;
      case 4:
        if (wireType !== I64) throw wrongWireType(r, 'AnyValue.double_value', wireType, I64);
        value = r.double();
        break;
      case 5: {
        if (wireType !== LEN) throw wrongWireType(r, 'AnyValue.array_value', wireType, LEN);
        const outer = enterMessage(r);
        value = decodeArrayValue(r, depth + 1, make);
        leaveMessage(r, outer);
        break;
      }
      case 6: {
        if (wireType !== LEN) throw wrongWireType(r, 'AnyValue.kvlist_value', wireType, LEN);
        const outer = enterMessage(r);
        const object: Attributes = make ? {} : NOTHING;
        decodeKeyValueList(r, object, depth + 1, make);
        value = make ? object : null;
        leaveMessage(r, outer);
        break;
      }
      case 7: {
        if (wireType !== LEN) throw wrongWireType(r, 'AnyValue.bytes_value', wireType, LEN);
        const start = skipBytes(r);
        if (!make) break;
        // A copy: a view would keep the whole request body alive for as long as the span lives.
        const bytes = new Uint8Array(r.pos - start);
        bytes.set(r.buf.subarray(start, r.pos));
        value = bytes;
        break;
      }
      default:
        skipField(r, tag);
    }
  }
  return make ? value : null;
}

function decodeArrayValue(r: WireReader, depth: number, make: boolean): AttributeValue[] {
  const values: AttributeValue[] = make ? [] : NO_VALUES;
  while (r.pos < r.len) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'ArrayValue.values', tag & 7, LEN);
      const outer = enterMessage(r);
      const value = decodeAnyValue(r, depth, make);
      if (make) values.push(value);
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
  }
  return values;
}

function decodeKeyValueList(r: WireReader, target: Attributes, depth: number, make: boolean): void {
  while (r.pos < r.len) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'KeyValueList.values', tag & 7, LEN);
      const outer = enterMessage(r);
      if (make) decodeKeyValue(r, target, depth);
      else checkKeyValue(r, depth);
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
  }
}
