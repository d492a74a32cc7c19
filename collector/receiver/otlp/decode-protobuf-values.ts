/**
 * Protobuf decoding of OTLP attribute values (common.proto: KeyValue, AnyValue, ArrayValue,
 * KeyValueList) into the plain values of `SpanData`.
 */
import type { AttributeValue, Attributes } from '../../model/span.ts';
import { OtlpDecodeError } from './errors.ts';
import {
  WireType,
  enterMessage,
  leaveMessage,
  readInt64,
  readKeyString,
  skipBytes,
  skipField,
  wrongWireType,
  type WireReader,
} from './protobuf-wire.ts';
import { setAttribute } from './set-attribute.ts';

/** Deeper AnyValue nesting than this is refused: it is never legitimate and would risk the stack. */
const MAX_VALUE_DEPTH = 64;

const { VARINT, I64, LEN } = WireType;

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
      value = decodeAnyValue(r, depth);
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
  }
  setAttribute(target, key, value);
}

/** An AnyValue: kvlist becomes a plain object, array an array, int64 a number; unset is null. */
function decodeAnyValue(r: WireReader, depth: number): AttributeValue {
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
        value = r.string();
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
        value = decodeArrayValue(r, depth + 1);
        leaveMessage(r, outer);
        break;
      }
      case 6: {
        if (wireType !== LEN) throw wrongWireType(r, 'AnyValue.kvlist_value', wireType, LEN);
        const outer = enterMessage(r);
        const object: Attributes = {};
        decodeKeyValueList(r, object, depth + 1);
        value = object;
        leaveMessage(r, outer);
        break;
      }
      case 7: {
        if (wireType !== LEN) throw wrongWireType(r, 'AnyValue.bytes_value', wireType, LEN);
        const start = skipBytes(r);
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
  return value;
}

function decodeArrayValue(r: WireReader, depth: number): AttributeValue[] {
  const values: AttributeValue[] = [];
  while (r.pos < r.len) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'ArrayValue.values', tag & 7, LEN);
      const outer = enterMessage(r);
      values.push(decodeAnyValue(r, depth));
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
  }
  return values;
}

function decodeKeyValueList(r: WireReader, target: Attributes, depth: number): void {
  while (r.pos < r.len) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'KeyValueList.values', tag & 7, LEN);
      const outer = enterMessage(r);
      decodeKeyValue(r, target, depth);
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
  }
}
