/**
 * The receiver's pass over an OTLP/protobuf ExportTraceServiceRequest: it makes every check the
 * decoder makes (`decode-request.ts`: the same walk, the same errors, the same spans refused) but
 * decodes only each span's head (ids, flags, name, scope and the attributes a matcher names), and
 * notes where each accepted span's bytes are and which trace it belongs to. `trace-requests.ts`
 * then cuts the request into one request per trace from those bytes: what the ledger stores, and
 * what the collector decodes in full once an interaction is decided.
 */
import type { SpanHead } from '../span.ts';
import type { SpanRejections } from '../span-rejections.ts';
import { scanProtobufSpan } from './decode-span.ts';
import { checkKeyValue } from './decode-values.ts';
import type { KeyMatcher } from './key-matcher.ts';
import { createTraceTable, type TraceTable } from './trace-table.ts';
import {
  WireType,
  createWireReader,
  enterMessage,
  leaveMessage,
  skipField,
  toDecodeError,
  wrongWireType,
  type WireReader,
} from './wire.ts';

const { LEN } = WireType;

/** Where the accepted spans of a request are, by trace. Ranges are [start, end) pairs into `body`. */
export interface ScannedRequest {
  body: Buffer;
  /** Per ResourceSpans: its fields other than `scope_spans` (resource, schema_url, unknown ones). */
  resourceHeaders: number[][];
  /** Per ScopeSpans (numbered across the request): its ResourceSpans. */
  scopeResource: number[];
  /** Per ScopeSpans: its fields other than `spans` (scope, schema_url, unknown ones). */
  scopeHeaders: number[][];
  /** Per accepted span, in request order: its whole field (tag, length, message). */
  spanStart: Int32Array;
  spanEnd: Int32Array;
  spanScope: Int32Array;
  /** Per accepted span: the index of its trace in `traceIds`. */
  spanTrace: Int32Array;
  /** Per accepted span: its head. */
  heads: SpanHead[];
  /** Trace ids (hex) in order of first appearance. */
  traceIds: string[];
}

/** The four numbers a span leaves in `spanNumbers`, in this order: start, end, scope, trace. */
const SPAN_NUMBERS = 4;
const NONE = new Int32Array(0);

/**
 * Each accepted span's numbers while a request is scanned, one array kept from request to request
 * (doubled when a request has more spans): four arrays grown by `push` allocated ~100 bytes a span
 * in their backing stores, which the event loop's young generation then collected.
 */
let spanNumbers = new Int32Array(SPAN_NUMBERS * 1024);

function noteSpan(index: number, start: number, end: number, scope: number, trace: number): void {
  const at = index * SPAN_NUMBERS;
  if (at + SPAN_NUMBERS > spanNumbers.length) {
    const bigger = new Int32Array(spanNumbers.length * 2);
    bigger.set(spanNumbers);
    spanNumbers = bigger;
  }
  spanNumbers[at] = start;
  spanNumbers[at + 1] = end;
  spanNumbers[at + 2] = scope;
  spanNumbers[at + 3] = trace;
}

/** `spanStart` … `spanTrace` of the request's `count` spans, out of `spanNumbers`, in one array of their own. */
function setSpanNumbers(scan: ScannedRequest, count: number): void {
  const all = new Int32Array(SPAN_NUMBERS * count);
  for (let i = 0, at = 0; i < count; i++, at += SPAN_NUMBERS) {
    all[i] = spanNumbers[at];
    all[count + i] = spanNumbers[at + 1];
    all[2 * count + i] = spanNumbers[at + 2];
    all[3 * count + i] = spanNumbers[at + 3];
  }
  scan.spanStart = all.subarray(0, count);
  scan.spanEnd = all.subarray(count, 2 * count);
  scan.spanScope = all.subarray(2 * count, 3 * count);
  scan.spanTrace = all.subarray(3 * count, 4 * count);
}

/**
 * Checks `body` as the decoder would (OtlpDecodeError when it cannot be decoded) and notes its spans,
 * their heads carrying the attributes `matcher` names.
 */
export function scanProtobufRequest(body: Uint8Array, matcher: KeyMatcher, rejections: SpanRejections): ScannedRequest {
  const r = createWireReader(body);
  const traces = createTraceTable();
  const scan: ScannedRequest = {
    body: r.buf as Buffer,
    resourceHeaders: [],
    scopeResource: [],
    scopeHeaders: [],
    spanStart: NONE,
    spanEnd: NONE,
    spanScope: NONE,
    spanTrace: NONE,
    heads: [],
    traceIds: traces.ids,
  };
  try {
    let resourceIndex = 0;
    while (r.pos < r.len) {
      const tag = r.tag();
      if (tag >>> 3 === 1) {
        if ((tag & 7) !== LEN) throw wrongWireType(r, 'ExportTraceServiceRequest.resource_spans', tag & 7, LEN);
        const outer = enterMessage(r);
        scanResourceSpans(r, scan, traces, matcher, rejections, resourceIndex++);
        leaveMessage(r, outer);
      } else {
        skipField(r, tag);
      }
    }
  } catch (error) {
    throw toDecodeError(r, error);
  }
  setSpanNumbers(scan, scan.heads.length);
  return scan;
}

function scanResourceSpans(
  r: WireReader,
  scan: ScannedRequest,
  traces: TraceTable,
  matcher: KeyMatcher,
  rejections: SpanRejections,
  resourceIndex: number,
): void {
  const headers: number[] = [];
  scan.resourceHeaders.push(headers);
  let scopeIndex = 0;
  while (r.pos < r.len) {
    const fieldStart = r.pos;
    const tag = r.tag();
    const field = tag >>> 3;
    if (field === 1 || field === 2) {
      if ((tag & 7) !== LEN)
        throw wrongWireType(r, field === 1 ? 'ResourceSpans.resource' : 'ResourceSpans.scope_spans', tag & 7, LEN);
      const outer = enterMessage(r);
      if (field === 1) scanResource(r);
      else scanScopeSpans(r, scan, traces, matcher, rejections, resourceIndex, scopeIndex++);
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
    if (field !== 2) headers.push(fieldStart, r.pos);
  }
}

function scanResource(r: WireReader): void {
  while (r.pos < r.len) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      if ((tag & 7) !== LEN) throw wrongWireType(r, 'Resource.attributes', tag & 7, LEN);
      const outer = enterMessage(r);
      checkKeyValue(r, 0);
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
  }
}

function scanScopeSpans(
  r: WireReader,
  scan: ScannedRequest,
  traces: TraceTable,
  matcher: KeyMatcher,
  rejections: SpanRejections,
  resourceIndex: number,
  scopeIndex: number,
): void {
  const scope = scan.scopeHeaders.length;
  const headers: number[] = [];
  scan.scopeHeaders.push(headers);
  scan.scopeResource.push(scan.resourceHeaders.length - 1);
  // Shared by the heads of this scope's spans, filled in place as the decoder fills its origin.
  const origin = { scopeName: '' };
  let spanIndex = 0;
  while (r.pos < r.len) {
    const fieldStart = r.pos;
    const tag = r.tag();
    const field = tag >>> 3;
    if (field === 1 || field === 2) {
      if ((tag & 7) !== LEN)
        throw wrongWireType(r, field === 1 ? 'ScopeSpans.scope' : 'ScopeSpans.spans', tag & 7, LEN);
      const outer = enterMessage(r);
      if (field === 1) scanScope(r, origin);
      else {
        const head = scanProtobufSpan(r, origin, matcher, traces, rejections, resourceIndex, scopeIndex, spanIndex++);
        if (head !== undefined) {
          // The reader is narrowed to the span's message: `r.len` is where its field ends.
          noteSpan(scan.heads.push(head) - 1, fieldStart, r.len, scope, traces.last);
        }
      }
      leaveMessage(r, outer);
    } else {
      skipField(r, tag);
    }
    if (field !== 2) headers.push(fieldStart, r.pos);
  }
}

function scanScope(r: WireReader, origin: { scopeName: string }): void {
  while (r.pos < r.len) {
    const tag = r.tag();
    const field = tag >>> 3;
    if (field === 1 || field === 2) {
      if ((tag & 7) !== LEN)
        throw wrongWireType(
          r,
          field === 1 ? 'InstrumentationScope.name' : 'InstrumentationScope.version',
          tag & 7,
          LEN,
        );
      if (field === 1) origin.scopeName = r.string();
      else r.skip(r.size()); // what string() checks, without the string
    } else {
      skipField(r, tag);
    }
  }
}
