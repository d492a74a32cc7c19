/**
 * Received spans kept in memory, as received, until their trace is released: the common case (a
 * trace whose interactions are decided within the settle window) builds its records from here and
 * never reads its spans back from the ledger. Bounded by `pending_spans_memory`: past it, the
 * oldest received requests are let go and their traces are read back from the ledger when decided.
 *
 * What is held for a trace is always the most recent of its appends, in order (an append that is
 * not held lets go of what came before it), so a span found here is the one the ledger would give
 * last for its id. The unit of memory is a received request's buffer (every trace's bytes of one
 * OTLP request, `TraceRequests`), counted once while any of its traces is held, at the size of the
 * memory it takes (a pooled buffer is larger than its bytes: buffer-pool.ts).
 */
import {
  releaseTraceRequests,
  retainTraceRequests,
  type TraceRequests,
} from '../../model/otlp-protobuf/trace-requests.ts';
import { decodeProtobufRequest } from '../../model/otlp-protobuf/decode-request.ts';
import type { SpanData } from '../../model/span.ts';
import { createSpanRejections } from '../../model/span-rejections.ts';
import { CODEC_OTLP_PROTOBUF, type EncodedSpans } from '../../ledger/span-store.ts';

export interface HeldSpans {
  /** Holds a stored batch's traces (what `appendSpans` has just made durable). */
  hold(traces: TraceRequests): void;
  /** The held spans of a trace in the order appended, decoded; undefined when none are held. */
  spansOf(traceId: string): SpanData[] | undefined;
  /**
   * The same, not decoded: views of the held bytes, valid until the next `hold` or `drop` (which
   * may let them go).
   */
  partsOf(traceId: string): EncodedSpans[] | undefined;
  /** Lets go of traces: released, or appended without being held (so what is held is no longer the latest). */
  drop(traceIds: Iterable<string>): void;
  /** Bytes held now. */
  readonly bytes: number;
}

interface HeldRequest {
  traces: TraceRequests;
  /** Its traces still held. */
  held: number;
}

interface Part {
  request: HeldRequest;
  index: number;
}

export function createHeldSpans(maxBytes: number): HeldSpans {
  const traces = new Map<string, Part[]>();
  // Oldest first: the first to go when over the bound.
  const requests = new Set<HeldRequest>();
  let bytes = 0;

  function dropTrace(traceId: string): void {
    const parts = traces.get(traceId);
    if (!parts) return;
    traces.delete(traceId);
    for (const { request } of parts) {
      request.held--;
      if (request.held === 0 && requests.delete(request)) {
        bytes -= memoryOf(request.traces);
        releaseTraceRequests(request.traces);
      }
    }
  }

  return {
    get bytes() {
      return bytes;
    },

    hold(received) {
      const size = memoryOf(received);
      if (size > maxBytes) {
        for (const traceId of received.traceIds) dropTrace(traceId);
        return;
      }
      const request: HeldRequest = { traces: received, held: received.traceIds.length };
      retainTraceRequests(received);
      requests.add(request);
      bytes += size;
      received.traceIds.forEach((traceId, index) => {
        const parts = traces.get(traceId);
        if (parts) parts.push({ request, index });
        else traces.set(traceId, [{ request, index }]);
      });
      while (bytes > maxBytes) {
        const oldest = requests.values().next().value!;
        // Each of its traces goes whole: what stays held must be the latest of a trace's appends.
        for (const traceId of oldest.traces.traceIds) dropTrace(traceId);
      }
    },

    partsOf(traceId) {
      return traces.get(traceId)?.map(({ request, index }) => {
        const { bytes: all, offsets } = request.traces;
        return { codec: CODEC_OTLP_PROTOBUF, bytes: all.subarray(offsets[index], offsets[index + 1]) };
      });
    },

    spansOf(traceId) {
      const parts = traces.get(traceId);
      if (!parts) return undefined;
      const spans: SpanData[] = [];
      for (const { request, index } of parts) {
        const { bytes: all, offsets } = request.traces;
        // Checked by the receiver before it was stored: nothing is refused here.
        const decoded = decodeProtobufRequest(all.subarray(offsets[index], offsets[index + 1]), createSpanRejections());
        for (const span of decoded) spans.push(span);
      }
      return spans;
    },

    drop(traceIds) {
      for (const traceId of traceIds) dropTrace(traceId);
    },
  };
}

/** The memory a received request's bytes take: their whole buffer. */
function memoryOf(traces: TraceRequests): number {
  return traces.bytes.buffer.byteLength;
}
