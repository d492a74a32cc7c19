/**
 * Protobuf decoding of one trace.proto `Span` (with its events, links and status) into `SpanData`.
 * A span whose ids are missing or of the wrong length is refused on its own (partial success);
 * the bytes around it are intact, so the rest of the batch still decodes.
 */
import type { Attributes, SpanData, SpanEvent, SpanLink, SpanOrigin } from '../../model/span.ts';
import { decodeKeyValue } from './decode-protobuf-values.ts';
import {
  WireType,
  enterMessage,
  leaveMessage,
  readFixed64,
  skipBytes,
  skipField,
  wrongWireType,
  type WireReader,
} from './protobuf-wire.ts';
import { spanPath, type SpanRejections } from './span-rejections.ts';

const TRACE_ID_BYTES = 16;
const SPAN_ID_BYTES = 8;

const { VARINT, I64, LEN, I32 } = WireType;

/** Decodes the span the reader is narrowed to; undefined when it was refused (and recorded). */
export function decodeProtobufSpan(
  r: WireReader,
  origin: SpanOrigin,
  rejections: SpanRejections,
  resourceIndex: number,
  scopeIndex: number,
  spanIndex: number,
): SpanData | undefined {
  const buf = r.buf as Buffer;
  let traceStart = 0;
  let traceLength = 0;
  let spanStart = 0;
  let spanLength = 0;
  let parentStart = 0;
  let parentLength = 0;
  let name = '';
  let kind = 0;
  let startTime = 0;
  let endTime = 0;
  const attributes: Attributes = {};
  const events: SpanEvent[] = [];
  const links: SpanLink[] = [];
  let linkProblem: string | undefined;
  let status: SpanData['status'] = { code: 0, message: undefined };
  let flags = 0;

  while (r.pos < r.len) {
    const tag = r.tag();
    const wireType = tag & 7;
    switch (tag >>> 3) {
      case 1:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.trace_id', wireType, LEN);
        traceStart = skipBytes(r);
        traceLength = r.pos - traceStart;
        break;
      case 2:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.span_id', wireType, LEN);
        spanStart = skipBytes(r);
        spanLength = r.pos - spanStart;
        break;
      case 4:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.parent_span_id', wireType, LEN);
        parentStart = skipBytes(r);
        parentLength = r.pos - parentStart;
        break;
      case 5:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.name', wireType, LEN);
        name = r.string();
        break;
      case 6:
        if (wireType !== VARINT) throw wrongWireType(r, 'Span.kind', wireType, VARINT);
        kind = r.int32();
        break;
      case 7:
        if (wireType !== I64) throw wrongWireType(r, 'Span.start_time_unix_nano', wireType, I64);
        startTime = readFixed64(r);
        break;
      case 8:
        if (wireType !== I64) throw wrongWireType(r, 'Span.end_time_unix_nano', wireType, I64);
        endTime = readFixed64(r);
        break;
      case 9: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.attributes', wireType, LEN);
        const outer = enterMessage(r);
        decodeKeyValue(r, attributes, 0);
        leaveMessage(r, outer);
        break;
      }
      case 11: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.events', wireType, LEN);
        const outer = enterMessage(r);
        events.push(decodeEvent(r));
        leaveMessage(r, outer);
        break;
      }
      case 13: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.links', wireType, LEN);
        const outer = enterMessage(r);
        const link = decodeLink(r, buf);
        if (typeof link === 'string') linkProblem ??= `links[${links.length}].${link}`;
        else links.push(link);
        leaveMessage(r, outer);
        break;
      }
      case 15: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.status', wireType, LEN);
        const outer = enterMessage(r);
        status = decodeStatus(r);
        leaveMessage(r, outer);
        break;
      }
      case 16:
        if (wireType !== I32) throw wrongWireType(r, 'Span.flags', wireType, I32);
        flags = r.fixed32();
        break;
      default:
        skipField(r, tag);
    }
  }

  const problem =
    idProblem(buf, 'traceId', traceStart, traceLength, TRACE_ID_BYTES) ??
    idProblem(buf, 'spanId', spanStart, spanLength, SPAN_ID_BYTES) ??
    (parentLength === 0 ? undefined : idProblem(buf, 'parentSpanId', parentStart, parentLength, SPAN_ID_BYTES)) ??
    linkProblem;
  if (problem !== undefined) {
    rejections.add(spanPath(resourceIndex, scopeIndex, spanIndex), problem);
    return undefined;
  }
  return {
    traceId: buf.toString('hex', traceStart, traceStart + TRACE_ID_BYTES),
    spanId: buf.toString('hex', spanStart, spanStart + SPAN_ID_BYTES),
    parentSpanId: parentLength === 0 ? undefined : buf.toString('hex', parentStart, parentStart + SPAN_ID_BYTES),
    name,
    kind,
    startTimeUnixNano: startTime,
    endTimeUnixNano: endTime,
    attributes,
    events,
    links,
    status,
    flags,
    origin,
  };
}

/** What is wrong with an id field, or undefined when it is a valid id. */
function idProblem(buf: Buffer, field: string, start: number, length: number, expected: number): string | undefined {
  if (length === 0) return `${field} is missing`;
  if (length !== expected) return `${field} must be ${expected} bytes (got ${length})`;
  for (let i = start; i < start + length; i++) if (buf[i] !== 0) return undefined;
  return `${field} must not be all zeros`;
}

function decodeEvent(r: WireReader): SpanEvent {
  let name = '';
  let time = 0;
  const attributes: Attributes = {};
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
        name = r.string();
        break;
      case 3: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.Event.attributes', wireType, LEN);
        const outer = enterMessage(r);
        decodeKeyValue(r, attributes, 0);
        leaveMessage(r, outer);
        break;
      }
      default:
        skipField(r, tag);
    }
  }
  return { name, timeUnixNano: time, attributes };
}

/** A link, or the problem with its ids (the span carrying it is then refused). */
function decodeLink(r: WireReader, buf: Buffer): SpanLink | string {
  let traceStart = 0;
  let traceLength = 0;
  let spanStart = 0;
  let spanLength = 0;
  const attributes: Attributes = {};
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
      case 4: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.Link.attributes', wireType, LEN);
        const outer = enterMessage(r);
        decodeKeyValue(r, attributes, 0);
        leaveMessage(r, outer);
        break;
      }
      default:
        skipField(r, tag);
    }
  }
  const problem =
    idProblem(buf, 'traceId', traceStart, traceLength, TRACE_ID_BYTES) ??
    idProblem(buf, 'spanId', spanStart, spanLength, SPAN_ID_BYTES);
  if (problem !== undefined) return problem;
  return {
    traceId: buf.toString('hex', traceStart, traceStart + TRACE_ID_BYTES),
    spanId: buf.toString('hex', spanStart, spanStart + SPAN_ID_BYTES),
    attributes,
  };
}

function decodeStatus(r: WireReader): SpanData['status'] {
  let code = 0;
  let message: string | undefined;
  while (r.pos < r.len) {
    const tag = r.tag();
    const wireType = tag & 7;
    const field = tag >>> 3;
    if (field === 2) {
      if (wireType !== LEN) throw wrongWireType(r, 'Status.message', wireType, LEN);
      const text = r.string();
      message = text === '' ? undefined : text;
    } else if (field === 3) {
      if (wireType !== VARINT) throw wrongWireType(r, 'Status.code', wireType, VARINT);
      code = r.int32();
    } else {
      skipField(r, tag);
    }
  }
  return { code, message };
}
