/**
 * Received spans held in memory until their trace is released, bounded by bytes: what is held of
 * a trace is always its latest appends, whole, in order — or nothing.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TraceRequests } from '../../../../collector/model/otlp-protobuf/trace-requests.ts';
import type { SpanData } from '../../../../collector/model/span.ts';
import { createHeldSpans } from '../../../../collector/processor/interactions/held-spans.ts';
import { createBufferPool } from '../../../../collector/model/buffer-pool.ts';
import {
  CODEC_OTLP_PROTOBUF,
  decodeEncodedSpans,
  type StoredTraceRow,
} from '../../../../collector/ledger/span-store.ts';
import {
  compressSpanRow,
  CODEC_OTLP_PROTOBUF_LZ4,
  CODEC_V8,
  encodeSpans,
} from '../../../../collector/ledger/core/span-codec.ts';
import { decodeTraceRequest, receiveTraceRequest } from '../../../../collector/receiver/otlp/index.ts';
import { buildRealisticSpans, serializeProtobuf } from '../../../fixtures/otlp/realistic-spans.ts';

let sdkSpans: ReadableSpan[];
beforeAll(async () => {
  sdkSpans = await buildRealisticSpans(40);
});

/** One received request of the given interactions (10 SDK spans each), and what it decodes to. */
function request(...interactions: number[]): { traces: TraceRequests; spans: SpanData[] } {
  const body = serializeProtobuf(interactions.flatMap((n) => sdkSpans.slice(n * 10, n * 10 + 10)));
  return {
    traces: receiveTraceRequest(body, 'protobuf').batch.byTrace!,
    spans: decodeTraceRequest(body, 'protobuf').spans,
  };
}

const of = (spans: SpanData[], traceId: string) => spans.filter((span) => span.traceId === traceId);

describe('held spans', () => {
  it("frees a request's bytes once neither the receiver nor the memory of pending spans uses them", () => {
    const held = createHeldSpans(64 * 1024 * 1024);
    const received = receiveTraceRequest(
      serializeProtobuf([0, 1].flatMap((n) => sdkSpans.slice(n * 10, n * 10 + 10))),
      'protobuf',
    ).batch;
    const traces = received.byTrace!;
    const buffer = traces.bytes.buffer as ArrayBuffer;
    held.hold(traces);
    received.release(); // every stage has consumed the batch: held spans still use the bytes
    expect(buffer.detached).toBe(false);
    expect(held.spansOf(traces.traceIds[0])).toHaveLength(10);
    held.drop([traces.traceIds[0]]);
    expect(buffer.detached).toBe(false);
    held.drop([traces.traceIds[1]]);
    expect(buffer.detached).toBe(true);
  });

  it('keeps the bytes of a request it let go while the receiver still uses them', () => {
    const held = createHeldSpans(1);
    const received = receiveTraceRequest(serializeProtobuf(sdkSpans.slice(0, 10)), 'protobuf').batch;
    held.hold(received.byTrace!); // larger than the bound: not held
    expect(received.spans()).toHaveLength(10);
    received.release();
    expect((received.byTrace!.bytes.buffer as ArrayBuffer).detached).toBe(true);
  });

  it('gives back the spans of every trace held, across requests, in the order appended', () => {
    const held = createHeldSpans(64 * 1024 * 1024);
    const first = request(0, 1);
    const second = request(1, 2);
    held.hold(first.traces);
    held.hold(second.traces);
    const [a, b] = first.traces.traceIds;
    const c = second.traces.traceIds[1];
    expect(held.spansOf(a)).toStrictEqual(of(first.spans, a));
    expect(held.spansOf(b)).toStrictEqual([...of(first.spans, b), ...of(second.spans, b)]);
    expect(held.spansOf(c)).toStrictEqual(of(second.spans, c));
    expect(held.bytes).toBe(first.traces.bytes.length + second.traces.bytes.length);
    expect(held.spansOf('f'.repeat(32))).toBeUndefined();
  });

  it('gives the same spans not decoded, as views of the held bytes, for a recorder to decode', () => {
    const held = createHeldSpans(64 * 1024 * 1024);
    const first = request(0, 1);
    const second = request(1, 2);
    held.hold(first.traces);
    held.hold(second.traces);
    const b = first.traces.traceIds[1];
    const parts = held.partsOf(b)!;
    expect(parts.map((part) => part.codec)).toEqual([CODEC_OTLP_PROTOBUF, CODEC_OTLP_PROTOBUF]);
    expect(parts[0].bytes.buffer).toBe(first.traces.bytes.buffer);
    expect(decodeEncodedSpans(parts, 'test')).toStrictEqual(held.spansOf(b));
    expect(held.partsOf('f'.repeat(32))).toBeUndefined();
  });

  it('lets a request go once every trace in it is dropped', () => {
    const held = createHeldSpans(64 * 1024 * 1024);
    const first = request(0, 1);
    const second = request(2);
    held.hold(first.traces);
    held.hold(second.traces);
    held.drop([first.traces.traceIds[0]]);
    expect(held.bytes).toBe(first.traces.bytes.length + second.traces.bytes.length);
    held.drop([first.traces.traceIds[1], 'f'.repeat(32)]);
    expect(held.bytes).toBe(second.traces.bytes.length);
    expect(held.spansOf(first.traces.traceIds[1])).toBeUndefined();
  });

  it('lets the oldest requests go past its bound, each of their traces whole', () => {
    const first = request(0, 1);
    const second = request(1, 2);
    const third = request(3);
    // Room for the last two requests, not for all three.
    const held = createHeldSpans(second.traces.bytes.length + third.traces.bytes.length + 10);
    held.hold(first.traces);
    held.hold(second.traces);
    held.hold(third.traces);
    const [a, b] = first.traces.traceIds;
    // Trace b's first part went with the first request: what was left of it is no longer its latest.
    expect(held.spansOf(a)).toBeUndefined();
    expect(held.spansOf(b)).toBeUndefined();
    expect(held.spansOf(second.traces.traceIds[1])).toStrictEqual(of(second.spans, second.traces.traceIds[1]));
    expect(held.spansOf(third.traces.traceIds[0])).toHaveLength(10);
    expect(held.bytes).toBe(second.traces.bytes.length + third.traces.bytes.length);
  });

  it('counts the memory a request takes: the whole of a pooled buffer, not only its bytes', async () => {
    const pool = createBufferPool();
    const body = serializeProtobuf(await buildRealisticSpans(200)); // over MIN_POOLED_BYTES: a pooled buffer
    const traces = receiveTraceRequest(body, 'protobuf', undefined, pool).batch.byTrace!;
    const memory = traces.bytes.buffer.byteLength;
    expect(memory).toBeGreaterThan(traces.bytes.length);
    const held = createHeldSpans(memory - 1);
    held.hold(traces);
    expect(held.spansOf(traces.traceIds[0])).toBeUndefined();
    const roomy = createHeldSpans(memory);
    roomy.hold(traces);
    expect(roomy.bytes).toBe(memory);
    expect(roomy.spansOf(traces.traceIds[0])).toHaveLength(10);
  });

  it('holds nothing with no room, and a request too large lets go of its traces', () => {
    const none = createHeldSpans(0);
    const first = request(0);
    none.hold(first.traces);
    expect(none.spansOf(first.traces.traceIds[0])).toBeUndefined();
    expect(none.bytes).toBe(0);

    const held = createHeldSpans(first.traces.bytes.length);
    held.hold(first.traces);
    held.hold(request(0, 1).traces);
    expect(held.spansOf(first.traces.traceIds[0])).toBeUndefined();
    expect(held.bytes).toBe(0);
  });

  describe('rows a store stored instead of the received bytes', () => {
    /** What the PostgreSQL store answers for a request: each trace's bytes compressed. */
    function compressed(traces: TraceRequests): StoredTraceRow[] {
      return traces.traceIds.map((traceId, i) =>
        compressSpanRow({
          traceId,
          codec: CODEC_OTLP_PROTOBUF,
          bytes: traces.bytes.subarray(traces.offsets[i], traces.offsets[i + 1]),
        }),
      );
    }

    it('gives back the same spans, decoded and as the stored rows, counting only their bytes', () => {
      const held = createHeldSpans(64 * 1024 * 1024);
      const first = request(0, 1);
      const rows = compressed(first.traces);
      held.holdRows(rows);
      const [a, b] = first.traces.traceIds;
      expect(held.spansOf(a)).toStrictEqual(of(first.spans, a));
      expect(held.spansOf(b)).toStrictEqual(of(first.spans, b));
      const parts = held.partsOf(b)!;
      expect(parts.map((part) => part.codec)).toEqual([CODEC_OTLP_PROTOBUF_LZ4]);
      expect([...parts[0].bytes]).toEqual([...rows[1].bytes]);
      const stored = rows[0].bytes.byteLength + rows[1].bytes.byteLength;
      expect(held.bytes).toBe(stored);
      // A tenth of the received bytes or less for this content: the same memory holds more traces.
      expect(stored * 5).toBeLessThan(first.traces.bytes.length);
    });

    it('copies the rows, so that a row viewing a larger buffer does not keep it', () => {
      const held = createHeldSpans(64 * 1024 * 1024);
      const first = request(0);
      const row = compressed(first.traces)[0];
      const large = new Uint8Array(row.bytes.byteLength + 16 * 1024);
      large.set(row.bytes, 100);
      held.holdRows([{ ...row, bytes: large.subarray(100, 100 + row.bytes.byteLength) }]);
      large.fill(0);
      const part = held.partsOf(first.traces.traceIds[0])![0];
      expect(part.bytes.buffer).not.toBe(large.buffer);
      expect(held.spansOf(first.traces.traceIds[0])).toStrictEqual(first.spans);
      expect(held.bytes).toBe(row.bytes.byteLength);
    });

    it('keeps a trace appended as rows and as a request in the order appended, and drops it whole', () => {
      const first = request(0, 1);
      const second = request(1);
      const b = first.traces.traceIds[1];
      const held = createHeldSpans(64 * 1024 * 1024);
      held.holdRows(compressed(first.traces));
      held.hold(second.traces);
      expect(held.spansOf(b)).toStrictEqual([...of(first.spans, b), ...of(second.spans, b)]);
      held.drop([first.traces.traceIds[0], b]);
      expect(held.bytes).toBe(0);
    });

    it('holds rows of spans decoded by the store (a request received as JSON)', () => {
      const held = createHeldSpans(64 * 1024 * 1024);
      const first = request(0);
      const traceId = first.traces.traceIds[0];
      held.holdRows([{ traceId, codec: CODEC_V8, bytes: encodeSpans(first.spans) }]);
      expect(held.spansOf(traceId)).toStrictEqual(first.spans);
    });

    it('keeps each row in its own codec', () => {
      const held = createHeldSpans(64 * 1024 * 1024);
      const first = request(0, 1);
      const [a, b] = first.traces.traceIds;
      held.holdRows([
        compressed(first.traces)[0],
        { traceId: b, codec: CODEC_V8, bytes: encodeSpans(of(first.spans, b)) },
      ]);
      expect(held.partsOf(a)!.map((part) => part.codec)).toEqual([CODEC_OTLP_PROTOBUF_LZ4]);
      expect(held.spansOf(a)).toStrictEqual(of(first.spans, a));
      expect(held.spansOf(b)).toStrictEqual(of(first.spans, b));
    });

    it('lets the oldest go past its bound; rows larger than it let go of what was held of their traces', () => {
      const first = compressed(request(0, 1).traces);
      const second = compressed(request(2).traces);
      const third = compressed(request(3).traces);
      // Room for either of the last two, not for both.
      const held = createHeldSpans(Math.max(second[0].bytes.byteLength, third[0].bytes.byteLength) + 1);
      held.holdRows(first); // larger than the bound: not held
      expect(held.partsOf(first[0].traceId)).toBeUndefined();
      held.holdRows(second);
      expect(held.partsOf(second[0].traceId)).toHaveLength(1);
      held.holdRows([second[0], ...first]); // not held: what was held of its traces is no longer the latest
      expect(held.partsOf(second[0].traceId)).toBeUndefined();
      expect(held.bytes).toBe(0);
      held.holdRows(second);
      held.holdRows(third); // past the bound: the oldest goes
      expect(held.partsOf(second[0].traceId)).toBeUndefined();
      expect(held.partsOf(third[0].traceId)).toHaveLength(1);
    });
  });
});
