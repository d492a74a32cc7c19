/**
 * The parts of a trace.proto `Span` below the span itself: events, links, status, and the checks
 * of an id field. Each walk takes `make`: false keeps every check and makes no value, which is how
 * the receiver checks a request before it acknowledges it (`scan-request.ts`).
 */
import type { Attributes, SpanData, SpanEvent, SpanLink } from '../span.ts';
import { checkKeyValue, decodeKeyValue } from './decode-values.ts';
import type { KeyMatcher } from './key-matcher.ts';
import {
  WireType,
  enterMessage,
  leaveMessage,
  readFixed64,
  skipBytes,
  skipField,
  wrongWireType,
  type WireReader,
} from './wire.ts';

export const TRACE_ID_BYTES = 16;
export const SPAN_ID_BYTES = 8;

const { VARINT, I64, LEN } = WireType;

/** What an event or link walked without `make` is: never read. */
const NO_EVENT: SpanEvent = Object.freeze({ name: '', timeUnixNano: 0, attributes: Object.freeze({}) });
const NO_LINK: SpanLink = Object.freeze({ traceId: '', spanId: '', attributes: Object.freeze({}) });
const NO_STATUS: SpanData['status'] = Object.freeze({ code: 0, message: undefined });

/** What is wrong with an id field, or undefined when it is a valid id. */
export function idProblem(
  buf: Uint8Array,
  field: string,
  start: number,
  length: number,
  expected: number,
): string | undefined {
  if (length === 0) return `${field} is missing`;
  if (length !== expected) return `${field} must be ${expected} bytes (got ${length})`;
  for (let i = start; i < start + length; i++) if (buf[i] !== 0) return undefined;
  return `${field} must not be all zeros`;
}

/**
 * A Span.attributes (or Event/Link attributes) entry: decoded into `target`; with a `matcher`,
 * checked and decoded only when the matcher names its key; without a `target`, only checked.
 */
export function spanAttribute(
  r: WireReader,
  target: Attributes | undefined,
  field: string,
  wireType: number,
  matcher?: KeyMatcher,
): void {
  if (wireType !== LEN) throw wrongWireType(r, field, wireType, LEN);
  const outer = enterMessage(r);
  if (target === undefined || matcher !== undefined) checkKeyValue(r, 0, target, matcher);
  else decodeKeyValue(r, target, 0);
  leaveMessage(r, outer);
}

export function decodeEvent(r: WireReader, make: boolean): SpanEvent {
  let name = '';
  let time = 0;
  const attributes: Attributes | undefined = make ? {} : undefined;
  while (r.pos < r.len) {
    const tag = r.tag();
    const wireType = tag & 7;
    switch (tag >>> 3) {
      case 1:
        if (wireType !== I64) throw wrongWireType(r, 'Span.Event.time_unix_nano', wireType, I64);
        time = readFixed64(r);
        break;
      case 2:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.Event.name', wireType, LEN);
        if (make) name = r.string();
        else r.skip(r.size());
        break;
      case 3:
        spanAttribute(r, attributes, 'Span.Event.attributes', wireType);
        break;
      default:
        skipField(r, tag);
    }
  }
  return attributes ? { name, timeUnixNano: time, attributes } : NO_EVENT;
}

/** A link, or the problem with its ids (the span carrying it is then refused). */
export function decodeLink(r: WireReader, make: boolean): SpanLink | string {
  const buf = r.buf as Buffer;
  let traceStart = 0;
  let traceLength = 0;
  let spanStart = 0;
  let spanLength = 0;
  const attributes: Attributes | undefined = make ? {} : undefined;
  while (r.pos < r.len) {
    const tag = r.tag();
    const wireType = tag & 7;
    switch (tag >>> 3) {
      case 1:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.Link.trace_id', wireType, LEN);
        traceStart = skipBytes(r);
        traceLength = r.pos - traceStart;
        break;
      case 2:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.Link.span_id', wireType, LEN);
        spanStart = skipBytes(r);
        spanLength = r.pos - spanStart;
        break;
      case 4:
        spanAttribute(r, attributes, 'Span.Link.attributes', wireType);
        break;
      default:
        skipField(r, tag);
    }
  }
  const problem =
    idProblem(buf, 'traceId', traceStart, traceLength, TRACE_ID_BYTES) ??
    idProblem(buf, 'spanId', spanStart, spanLength, SPAN_ID_BYTES);
  if (problem !== undefined) return problem;
  if (!attributes) return NO_LINK;
  return {
    traceId: buf.toString('hex', traceStart, traceStart + TRACE_ID_BYTES),
    spanId: buf.toString('hex', spanStart, spanStart + SPAN_ID_BYTES),
    attributes,
  };
}

export function decodeStatus(r: WireReader, make: boolean): SpanData['status'] {
  let code = 0;
  let message: string | undefined;
  while (r.pos < r.len) {
    const tag = r.tag();
    const wireType = tag & 7;
    const field = tag >>> 3;
    if (field === 2) {
      if (wireType !== LEN) throw wrongWireType(r, 'Status.message', wireType, LEN);
      if (make) {
        const text = r.string();
        message = text === '' ? undefined : text;
      } else r.skip(r.size());
    } else if (field === 3) {
      if (wireType !== VARINT) throw wrongWireType(r, 'Status.code', wireType, VARINT);
      code = r.int32();
    } else {
      skipField(r, tag);
    }
  }
  return make ? { code, message } : NO_STATUS;
}
