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
  spanStart: number[];
  spanEnd: number[];
  spanScope: number[];
  /** Per accepted span: the index of its trace in `traceIds`. */
  spanTrace: number[];
  /** Per accepted span: its head. */
  heads: SpanHead[];
  /** Trace ids (hex) in order of first appearance. */
  traceIds: string[];
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
    spanStart: [],
    spanEnd: [],
    spanScope: [],
    spanTrace: [],
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
          scan.heads.push(head);
          scan.spanStart.push(fieldStart);
          scan.spanEnd.push(r.len); // the reader is narrowed to the span's message
          scan.spanScope.push(scope);
          scan.spanTrace.push(traces.last);
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
