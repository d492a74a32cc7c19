/**
 * The batch of an OTLP/protobuf request as the receiver hands it on: checked, with each span's head
 * decoded (`scan-request.ts`), cut by trace (`trace-requests.ts`), and decoded in full only when a
 * stage asks.
 */
import type { BufferPool } from '../buffer-pool.ts';
import type { SpanBatch } from '../span-batch.ts';
import type { SpanData, SpanHead } from '../span.ts';
import { createSpanRejections } from '../span-rejections.ts';
import { decodeProtobufRequest } from './decode-request.ts';
import type { ScannedRequest } from './scan-request.ts';
import { cutByTrace, releaseTraceRequests, type TraceRequests } from './trace-requests.ts';

export function receivedBatch(scan: ScannedRequest, pool?: BufferPool): SpanBatch {
  const byTrace = cutByTrace(scan, pool);
  // Which trace and scope each span is, in request order: how the per-trace decodes are put back.
  const { spanTrace, spanScope } = scan;
  const spanCount = scan.heads.length;
  let heads: SpanHead[] | undefined = scan.heads;
  let decoded: SpanData[] | undefined;

  function decodeAll(): SpanData[] {
    const perTrace: SpanData[][] = [];
    for (let t = 0; t < byTrace.traceIds.length; t++) {
      // The request was checked when received: nothing is refused here.
      perTrace.push(decodeProtobufRequest(traceRequest(byTrace, t), createSpanRejections()));
    }
    const next = new Array<number>(perTrace.length).fill(0);
    const spans = Array.from(spanTrace, (t) => perTrace[t][next[t]++]);
    // As in a decode of the whole request, the spans of one scope share one origin object.
    const origins = new Map<number, SpanData['origin']>();
    spans.forEach((span, i) => {
      const shared = origins.get(spanScope[i]);
      if (shared) span.origin = shared;
      else origins.set(spanScope[i], span.origin);
    });
    return spans;
  }

  return {
    spanCount,
    get heads() {
      if (!heads) throw new Error('received batch: its heads were read after they were dropped');
      return heads;
    },
    dropHeads() {
      heads = undefined;
    },
    byTrace,
    spans: () => (decoded ??= decodeAll()),
    release: () => releaseTraceRequests(byTrace),
  };
}

/** Trace `index`'s request (a view into the batch's buffer). */
export function traceRequest(traces: TraceRequests, index: number): Buffer {
  return traces.bytes.subarray(traces.offsets[index], traces.offsets[index + 1]);
}
