/**
 * Protobuf decoding of one trace.proto `Span` (with its events, links and status) into `SpanData`.
 * A span whose ids are missing or of the wrong length is refused on its own (partial success);
 * the bytes around it are intact, so the rest of the batch still decodes.
 *
 * One walk over the span's fields serves both uses: decoding it whole (`decodeProtobufSpan`), and
 * checking it while decoding only its head (`scanProtobufSpan`, before a request is acknowledged:
 * the same checks, so a request accepted then always decodes later; the head is ids, flags, name
 * and the few attributes a matcher names).
 */
import {
  hexId,
  type Attributes,
  type SpanData,
  type SpanEvent,
  type SpanHead,
  type SpanLink,
  type SpanOrigin,
} from '../span.ts';
import type { KeyMatcher } from './key-matcher.ts';
import type { TraceTable } from './trace-table.ts';
import { spanPath, type SpanRejections } from '../span-rejections.ts';
import {
  SPAN_ID_BYTES,
  TRACE_ID_BYTES,
  decodeEvent,
  decodeLink,
  decodeStatus,
  idProblem,
  spanAttribute,
} from './decode-span-parts.ts';
import {
  WireType,
  enterMessage,
  leaveMessage,
  readFixed64,
  readSharedString,
  skipBytes,
  skipFixed64,
  skipField,
  wrongWireType,
  type WireReader,
} from './wire.ts';

const { VARINT, I64, LEN, I32 } = WireType;

/** How a span is walked: decoded whole, or checked with only its head decoded. */
const FULL = 0;
const SCAN = 1;
type Mode = typeof FULL | typeof SCAN;

/** What a walk found. One object is reused: the walks are synchronous and never nest. */
interface Found {
  traceStart: number;
  traceLength: number;
  spanStart: number;
  spanLength: number;
  parentStart: number;
  parentLength: number;
  name: string;
  kind: number;
  startTime: number;
  endTime: number;
  attributes: Attributes;
  events: SpanEvent[];
  links: SpanLink[];
  /** Valid links so far (they name a refused link in the message, as the decoder always has). */
  linkCount: number;
  linkProblem: string | undefined;
  status: SpanData['status'];
  flags: number;
}
const NO_STATUS: SpanData['status'] = Object.freeze({ code: 0, message: undefined });
const NONE: never[] = Object.freeze([]) as unknown as never[];
const found: Found = {
  traceStart: 0,
  traceLength: 0,
  spanStart: 0,
  spanLength: 0,
  parentStart: 0,
  parentLength: 0,
  name: '',
  kind: 0,
  startTime: 0,
  endTime: 0,
  attributes: {},
  events: [],
  links: [],
  linkCount: 0,
  linkProblem: undefined,
  status: NO_STATUS,
  flags: 0,
};

function walkSpan(r: WireReader, mode: Mode, matcher: KeyMatcher | undefined): Found {
  const f = found;
  f.traceStart = f.traceLength = f.spanStart = f.spanLength = f.parentStart = f.parentLength = 0;
  f.name = '';
  f.kind = f.startTime = f.endTime = f.flags = 0;
  f.attributes = {};
  f.events = mode === FULL ? [] : NONE;
  f.links = mode === FULL ? [] : NONE;
  f.linkCount = 0;
  f.linkProblem = undefined;
  f.status = mode === FULL ? { code: 0, message: undefined } : NO_STATUS;
  const make = mode === FULL;
  while (r.pos < r.len) {
    const tag = r.tag();
    const wireType = tag & 7;
    switch (tag >>> 3) {
      case 1:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.trace_id', wireType, LEN);
        f.traceStart = skipBytes(r);
        f.traceLength = r.pos - f.traceStart;
        break;
      case 2:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.span_id', wireType, LEN);
        f.spanStart = skipBytes(r);
        f.spanLength = r.pos - f.spanStart;
        break;
      case 4:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.parent_span_id', wireType, LEN);
        f.parentStart = skipBytes(r);
        f.parentLength = r.pos - f.parentStart;
        break;
      case 5:
        if (wireType !== LEN) throw wrongWireType(r, 'Span.name', wireType, LEN);
        f.name = readSharedString(r);
        break;
      case 6:
        if (wireType !== VARINT) throw wrongWireType(r, 'Span.kind', wireType, VARINT);
        f.kind = r.int32();
        break;
      // A head has no times: stepped over (a time as a number is a heap allocation each).
      case 7:
        if (wireType !== I64) throw wrongWireType(r, 'Span.start_time_unix_nano', wireType, I64);
        if (make) f.startTime = readFixed64(r);
        else skipFixed64(r);
        break;
      case 8:
        if (wireType !== I64) throw wrongWireType(r, 'Span.end_time_unix_nano', wireType, I64);
        if (make) f.endTime = readFixed64(r);
        else skipFixed64(r);
        break;
      case 9:
        spanAttribute(r, f.attributes, 'Span.attributes', wireType, make ? undefined : matcher);
        break;
      case 11: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.events', wireType, LEN);
        const outer = enterMessage(r);
        const event = decodeEvent(r, make);
        if (make) f.events.push(event);
        leaveMessage(r, outer);
        break;
      }
      case 13: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.links', wireType, LEN);
        const outer = enterMessage(r);
        const link = decodeLink(r, make);
        if (typeof link === 'string') f.linkProblem ??= `links[${f.linkCount}].${link}`;
        else {
          f.linkCount++;
          if (make) f.links.push(link);
        }
        leaveMessage(r, outer);
        break;
      }
      case 15: {
        if (wireType !== LEN) throw wrongWireType(r, 'Span.status', wireType, LEN);
        const outer = enterMessage(r);
        f.status = decodeStatus(r, make);
        leaveMessage(r, outer);
        break;
      }
      case 16:
        if (wireType !== I32) throw wrongWireType(r, 'Span.flags', wireType, I32);
        f.flags = r.fixed32();
        break;
      default:
        skipField(r, tag);
    }
  }
  return f;
}

/** What refuses the span just walked (a bad id), or undefined. */
function problemOf(buf: Buffer, f: Found): string | undefined {
  return (
    idProblem(buf, 'traceId', f.traceStart, f.traceLength, TRACE_ID_BYTES) ??
    idProblem(buf, 'spanId', f.spanStart, f.spanLength, SPAN_ID_BYTES) ??
    (f.parentLength === 0 ? undefined : idProblem(buf, 'parentSpanId', f.parentStart, f.parentLength, SPAN_ID_BYTES)) ??
    f.linkProblem
  );
}

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
  const f = walkSpan(r, FULL, undefined);
  const problem = problemOf(buf, f);
  if (problem !== undefined) {
    rejections.add(spanPath(resourceIndex, scopeIndex, spanIndex), problem);
    return undefined;
  }
  return {
    traceId: buf.toString('hex', f.traceStart, f.traceStart + TRACE_ID_BYTES),
    spanId: buf.toString('hex', f.spanStart, f.spanStart + SPAN_ID_BYTES),
    parentSpanId: f.parentLength === 0 ? undefined : buf.toString('hex', f.parentStart, f.parentStart + SPAN_ID_BYTES),
    name: f.name,
    kind: f.kind,
    startTimeUnixNano: f.startTime,
    endTimeUnixNano: f.endTime,
    attributes: f.attributes,
    events: f.events,
    links: f.links,
    status: f.status,
    flags: f.flags,
    origin,
  };
}

/**
 * Checks the span the reader is narrowed to exactly as `decodeProtobufSpan` would, decoding only its
 * head: ids, flags, name, and the attributes `matcher` names. Undefined when it was refused (and
 * recorded). Its trace is found in `traces` (added when new; `traces.last` is its index), and
 * its trace id is that trace's string.
 */
export function scanProtobufSpan(
  r: WireReader,
  origin: SpanHead['origin'],
  matcher: KeyMatcher,
  traces: TraceTable,
  rejections: SpanRejections,
  resourceIndex: number,
  scopeIndex: number,
  spanIndex: number,
): SpanHead | undefined {
  const buf = r.buf as Buffer;
  const f = walkSpan(r, SCAN, matcher);
  const problem = problemOf(buf, f);
  if (problem !== undefined) {
    rejections.add(spanPath(resourceIndex, scopeIndex, spanIndex), problem);
    return undefined;
  }
  return new ScannedHead(traces.ids[traces.indexOf(buf, f.traceStart)], buf, f, origin);
}

/**
 * A scanned span's head. Its ids stay the numbers of their bytes, written out as hex only if read:
 * the assembler keeps them as numbers, and making two strings a span to parse them back was ~7 % of
 * the receiver's check of a request.
 */
class ScannedHead implements SpanHead {
  readonly traceId: string;
  readonly name: string;
  readonly attributes: Attributes;
  readonly flags: number;
  readonly origin: SpanHead['origin'];
  readonly spanIdHigh: number;
  readonly spanIdLow: number;
  readonly parentIdHigh: number | undefined;
  readonly parentIdLow: number | undefined;

  constructor(traceId: string, buf: Buffer, f: Found, origin: SpanHead['origin']) {
    this.traceId = traceId;
    this.name = f.name;
    this.attributes = f.attributes;
    this.flags = f.flags;
    this.origin = origin;
    this.spanIdHigh = buf.readInt32BE(f.spanStart);
    this.spanIdLow = buf.readInt32BE(f.spanStart + 4);
    this.parentIdHigh = f.parentLength === 0 ? undefined : buf.readInt32BE(f.parentStart);
    this.parentIdLow = f.parentLength === 0 ? undefined : buf.readInt32BE(f.parentStart + 4);
  }

  get spanId(): string {
    return hexId(this.spanIdHigh, this.spanIdLow);
  }

  get parentSpanId(): string | undefined {
    return this.parentIdHigh === undefined ? undefined : hexId(this.parentIdHigh, this.parentIdLow!);
  }
}
