/**
 * Cuts a scanned OTLP/protobuf request (`scan-request.ts`) into one ExportTraceServiceRequest per
 * trace, made of the received bytes: each trace's spans with the resource and scope fields they
 * were sent under, copied as they are. Decoding a trace's request gives exactly the spans that
 * decoding the whole request gives for that trace, in the same order. No span is re-encoded: the
 * cut is a few copies of byte ranges, which is why the ledger stores spans this way.
 */
import type { BufferPool } from '../buffer-pool.ts';
import { freeBuffer } from '../free-buffer.ts';
import type { ScannedRequest } from './scan-request.ts';

/** The requests of every trace of one received request, back to back in one buffer. */
export interface TraceRequests {
  /** Trace ids (hex), in order of first appearance in the received request. */
  traceIds: string[];
  /** Spans of each trace. */
  spanCounts: number[];
  /** Every trace's ExportTraceServiceRequest, back to back. */
  bytes: Buffer;
  /** Trace `i`'s request is `bytes[offsets[i], offsets[i + 1])`. */
  offsets: number[];
  /** Who uses `bytes` now (`retainTraceRequests`); the receiver that cut them is the first. */
  users: number;
  /** What the last user's release does with `bytes`: back to the pool they came from, else freed. */
  free(buffer: ArrayBufferLike): void;
}

/**
 * A further user of a batch's bytes (the collector's memory of pending spans), until it calls
 * `releaseTraceRequests`.
 */
export function retainTraceRequests(traces: TraceRequests): void {
  traces.users++;
}

/**
 * A user is done with the bytes; the last one frees them at once. A request's bytes are megabytes:
 * left to the garbage collector, those of requests already stored and let go piled up by the
 * dozen under sustained ingest. A user that never calls this (a receiver that does not) leaves
 * them to the garbage collector, as before.
 */
export function releaseTraceRequests(traces: TraceRequests): void {
  if (traces.users > 0 && --traces.users === 0) traces.free(traces.bytes.buffer);
}

/** ExportTraceServiceRequest.resource_spans (field 1) and ResourceSpans.scope_spans (field 2), LEN. */
const RESOURCE_SPANS_TAG = 0x0a;
const SCOPE_SPANS_TAG = 0x12;

/** Cuts into a buffer from `pool` when given (given back when the last user releases it). */
export function cutByTrace(scan: ScannedRequest, pool?: BufferPool): TraceRequests {
  const { body, spanStart, spanEnd, spanScope, spanTrace, scopeResource } = scan;
  const traces = scan.traceIds.length;
  // Each trace's spans in request order (a counting sort by trace).
  const first = new Array<number>(traces + 1).fill(0);
  for (const trace of spanTrace) first[trace + 1]++;
  for (let t = 0; t < traces; t++) first[t + 1] += first[t];
  const spanCounts = new Array<number>(traces);
  for (let t = 0; t < traces; t++) spanCounts[t] = first[t + 1] - first[t];
  const order = new Int32Array(spanTrace.length);
  const next = first.slice(0, traces);
  for (let s = 0; s < spanTrace.length; s++) order[next[spanTrace[s]]++] = s;

  const resourceHeaderBytes = scan.resourceHeaders.map(rangesLength);
  const scopeHeaderBytes = scan.scopeHeaders.map(rangesLength);

  // Pass 1: message sizes, in the order pass 2 writes them (a resource's, then its scopes').
  const sizes: number[] = [];
  const offsets = new Array<number>(traces + 1);
  offsets[0] = 0;
  for (let t = 0; t < traces; t++) {
    let total = 0;
    for (let i = first[t], end = first[t + 1]; i < end; ) {
      const resource = scopeResource[spanScope[order[i]]];
      const at = sizes.push(0) - 1;
      let resourceBody = resourceHeaderBytes[resource];
      while (i < end && scopeResource[spanScope[order[i]]] === resource) {
        const scope = spanScope[order[i]];
        let scopeBody = scopeHeaderBytes[scope];
        for (; i < end && spanScope[order[i]] === scope; i++) scopeBody += spanEnd[order[i]] - spanStart[order[i]];
        sizes.push(scopeBody);
        resourceBody += 1 + varintLength(scopeBody) + scopeBody;
      }
      sizes[at] = resourceBody;
      total += 1 + varintLength(resourceBody) + resourceBody;
    }
    offsets[t + 1] = offsets[t] + total;
  }

  // Pass 2: write, into a buffer of its own (not a slice of Node's pool): the collector keeps it
  // while its traces are held in memory, and frees it (or gives it back) with the batch.
  const bytes = pool ? pool.take(offsets[traces]) : Buffer.allocUnsafeSlow(offsets[traces]);
  let pos = 0;
  let size = 0;
  for (let t = 0; t < traces; t++) {
    for (let i = first[t], end = first[t + 1]; i < end; ) {
      const resource = scopeResource[spanScope[order[i]]];
      bytes[pos++] = RESOURCE_SPANS_TAG;
      pos = writeVarint(bytes, pos, sizes[size++]);
      pos = copyRanges(body, scan.resourceHeaders[resource], bytes, pos);
      while (i < end && scopeResource[spanScope[order[i]]] === resource) {
        const scope = spanScope[order[i]];
        bytes[pos++] = SCOPE_SPANS_TAG;
        pos = writeVarint(bytes, pos, sizes[size++]);
        pos = copyRanges(body, scan.scopeHeaders[scope], bytes, pos);
        for (; i < end && spanScope[order[i]] === scope; i++) {
          pos += body.copy(bytes, pos, spanStart[order[i]], spanEnd[order[i]]);
        }
      }
    }
  }
  const free = pool ? (buffer: ArrayBufferLike) => pool.give(buffer) : freeBuffer;
  return { traceIds: scan.traceIds, spanCounts, bytes, offsets, users: 1, free };
}

function rangesLength(ranges: number[]): number {
  let length = 0;
  for (let i = 0; i < ranges.length; i += 2) length += ranges[i + 1] - ranges[i];
  return length;
}

function copyRanges(from: Buffer, ranges: number[], to: Buffer, pos: number): number {
  for (let i = 0; i < ranges.length; i += 2) pos += from.copy(to, pos, ranges[i], ranges[i + 1]);
  return pos;
}

function varintLength(value: number): number {
  let length = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    length++;
  }
  return length;
}

function writeVarint(to: Buffer, pos: number, value: number): number {
  while (value >= 0x80) {
    to[pos++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  to[pos++] = value;
  return pos;
}
