/**
 * OTLP/JSON attribute values (`{"key": ..., "value": {"stringValue": ...}}`) into the plain values
 * of `SpanData`: kvlist becomes an object, array an array, `intValue` (string or number) a number,
 * `bytesValue` (base64) a Uint8Array. An AnyValue with no known key is null (unknown keys ignored).
 */
import type { AttributeValue, Attributes } from '../../model/span.ts';
import { JsonShapeError, describe, isObject, readArray, readDouble, readInt64, readObject } from './json-fields.ts';
import { setAttribute } from '../../model/set-attribute.ts';

/** Deeper AnyValue nesting than this is refused: it is never legitimate and would risk the stack. */
const MAX_VALUE_DEPTH = 64;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Reads a repeated KeyValue field (`field` names it in errors) onto `target`; a later duplicate wins. */
export function readAttributes(value: unknown, field: string, target: Attributes, depth = 0): Attributes {
  const list = readArray(value, field);
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    if (!isObject(entry)) throw new JsonShapeError(`${field}[${i}]`, `must be an object (got ${describe(entry)})`);
    const key = entry.key;
    if (typeof key !== 'string' && key !== undefined && key !== null) {
      throw new JsonShapeError(`${field}[${i}].key`, `must be a string (got ${describe(key)})`);
    }
    let attribute: AttributeValue = null;
    if (entry.value !== undefined && entry.value !== null) {
      try {
        attribute = readAnyValue(entry.value, depth);
      } catch (error) {
        throw error instanceof JsonShapeError ? error.within(`${field}[${i}].value`) : error;
      }
    }
    setAttribute(target, typeof key === 'string' ? key : '', attribute);
  }
  return target;
}

/** One AnyValue; errors carry paths relative to it (`intValue`, `arrayValue.values[2]`). */
function readAnyValue(value: unknown, depth: number): AttributeValue {
  if (!isObject(value)) throw new JsonShapeError('', `must be an AnyValue object (got ${describe(value)})`);
  if (depth > MAX_VALUE_DEPTH) throw new JsonShapeError('', `is nested deeper than ${MAX_VALUE_DEPTH} levels`);
  const text = value.stringValue;
  if (text !== undefined && text !== null) {
    if (typeof text === 'string') return text;
    throw new JsonShapeError('stringValue', `must be a string (got ${describe(text)})`);
  }
  const int = value.intValue;
  if (int !== undefined && int !== null) return readInt64(int, 'intValue');
  const bool = value.boolValue;
  if (bool !== undefined && bool !== null) {
    if (typeof bool === 'boolean') return bool;
    throw new JsonShapeError('boolValue', `must be true or false (got ${describe(bool)})`);
  }
  const double = value.doubleValue;
  if (double !== undefined && double !== null) return readDouble(double, 'doubleValue');
  const array = readObject(value.arrayValue, 'arrayValue');
  if (array !== undefined) return readArrayValue(array, depth + 1);
  const kvlist = readObject(value.kvlistValue, 'kvlistValue');
  if (kvlist !== undefined) return readAttributes(kvlist.values, 'kvlistValue.values', {}, depth + 1);
  const bytes = value.bytesValue;
  if (bytes !== undefined && bytes !== null) {
    if (typeof bytes !== 'string' || !BASE64.test(bytes)) {
      throw new JsonShapeError('bytesValue', `must be a base64 string (got ${describe(bytes)})`);
    }
    // A fresh copy: Buffer.from may hand out a slice of a shared pool.
    return new Uint8Array(Buffer.from(bytes, 'base64'));
  }
  return null;
}

function readArrayValue(array: Record<string, unknown>, depth: number): AttributeValue[] {
  const list = readArray(array.values, 'arrayValue.values');
  const values: AttributeValue[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    try {
      values[i] = item === null || item === undefined ? null : readAnyValue(item, depth);
    } catch (error) {
      throw error instanceof JsonShapeError ? error.within(`arrayValue.values[${i}]`) : error;
    }
  }
  return values;
}
