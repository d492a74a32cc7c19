/**
 * Received spans kept in memory until their trace is released: the common case (a trace whose
 * interactions are decided within the settle window) builds its records from here and never reads
 * its spans back from the ledger. Bounded by `pending_spans_memory`: past it, the oldest held
 * batches are let go and their traces are read back from the ledger when decided.
 *
 * What is held for a trace is always the most recent of its appends, in order (an append that is
 * not held lets go of what came before it), so a span found here is the one the ledger would give
 * last for its id. The unit of memory is one stored batch, counted once while any of its traces is
 * held, at the size of the memory it takes: either the received request's buffer (every trace's
 * bytes of one OTLP request, `TraceRequests`; a pooled buffer is larger than its bytes:
 * buffer-pool.ts), or the rows a store stored instead when it encodes them otherwise (PostgreSQL
 * compresses them: a ninth to a half of the bytes, so the same memory holds two to nine times the
 * traces), copied together into one buffer of their exact size.
 */
import {
  releaseTraceRequests,
  retainTraceRequests,
  type TraceRequests,
} from '../../model/otlp-protobuf/trace-requests.ts';
import type { SpanData } from '../../model/span.ts';
import {
  CODEC_OTLP_PROTOBUF,
  decodeEncodedSpans,
  type EncodedSpans,
  type StoredTraceRow,
} from '../../ledger/span-store.ts';

export interface HeldSpans {
  /** Holds a stored batch's traces as received (what `appendSpans` has just made durable). */
  hold(traces: TraceRequests): void;
  /** Holds a stored batch's traces as the store encoded them (what its `appendSpans` answered). */
  holdRows(rows: readonly StoredTraceRow[]): void;
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

interface HeldBatch {
  traceIds: readonly string[];
  /** Trace `i`'s codec. */
  codecs: readonly number[];
  /** Trace `i`'s bytes are `bytes[offsets[i], offsets[i + 1])`. */
  bytes: Uint8Array;
  offsets: readonly number[];
  memory: number;
  /** Lets go of the bytes once no trace of the batch is held. */
  free(): void;
  /** Its traces still held. */
  held: number;
}

interface Part {
  batch: HeldBatch;
  index: number;
}

export function createHeldSpans(maxBytes: number): HeldSpans {
  const traces = new Map<string, Part[]>();
  // Oldest first: the first to go when over the bound.
  const batches = new Set<HeldBatch>();
  let bytes = 0;

  function dropTrace(traceId: string): void {
    const parts = traces.get(traceId);
    if (!parts) return;
    traces.delete(traceId);
    for (const { batch } of parts) {
      batch.held--;
      if (batch.held === 0 && batches.delete(batch)) {
        bytes -= batch.memory;
        batch.free();
      }
    }
  }

  /** Holds a batch, or lets go of its traces when it alone is larger than the bound (false). */
  function holdBatch(batch: HeldBatch): boolean {
    if (batch.memory > maxBytes) {
      for (const traceId of batch.traceIds) dropTrace(traceId);
      return false;
    }
    batches.add(batch);
    bytes += batch.memory;
    batch.traceIds.forEach((traceId, index) => {
      const parts = traces.get(traceId);
      if (parts) parts.push({ batch, index });
      else traces.set(traceId, [{ batch, index }]);
    });
    while (bytes > maxBytes) {
      const oldest = batches.values().next().value!;
      // Each of its traces goes whole: what stays held must be the latest of a trace's appends.
      for (const traceId of oldest.traceIds) dropTrace(traceId);
    }
    return true;
  }

  function partOf({ batch, index }: Part): EncodedSpans {
    return { codec: batch.codecs[index], bytes: batch.bytes.subarray(batch.offsets[index], batch.offsets[index + 1]) };
  }

  return {
    get bytes() {
      return bytes;
    },

    hold(received) {
      const held = holdBatch({
        traceIds: received.traceIds,
        codecs: received.traceIds.map(() => CODEC_OTLP_PROTOBUF),
        bytes: received.bytes,
        offsets: received.offsets,
        // The whole buffer: a pooled one is larger than its bytes.
        memory: received.bytes.buffer.byteLength,
        free: () => releaseTraceRequests(received),
        held: received.traceIds.length,
      });
      // A batch is never let go by its own hold: retaining the bytes now is in time.
      if (held) retainTraceRequests(received);
    },

    holdRows(rows) {
      if (rows.length === 0) return;
      const offsets = [0];
      for (const row of rows) offsets.push(offsets[offsets.length - 1] + row.bytes.byteLength);
      const memory = offsets[offsets.length - 1];
      // Copied together: a row may be a view of a larger buffer (zlib's output chunk), which
      // holding it would keep whole.
      const together = new Uint8Array(memory);
      rows.forEach((row, i) => {
        together.set(row.bytes, offsets[i]);
      });
      holdBatch({
        traceIds: rows.map((row) => row.traceId),
        codecs: rows.map((row) => row.codec),
        bytes: together,
        offsets,
        memory,
        free: () => undefined,
        held: rows.length,
      });
    },

    partsOf(traceId) {
      return traces.get(traceId)?.map(partOf);
    },

    spansOf(traceId) {
      const parts = traces.get(traceId);
      if (!parts) return undefined;
      // Checked by the receiver before it was stored: nothing is refused here.
      return decodeEncodedSpans(parts.map(partOf), 'in memory');
    },

    drop(traceIds) {
      for (const traceId of traceIds) dropTrace(traceId);
    },
  };
}
