/** The protobuf decoder on bytes no SDK would send: unknown fields, truncation, wrong wire types. */
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { OtlpDecodeError, decodeTraceRequest } from '../../../../collector/receiver/otlp/index.ts';
import { encodeOtlpProtobuf } from '../../../fixtures/otlp/encode-otlp-protobuf.ts';
import { TRACE_ID, sampleRequest, sampleSpan } from '../../../fixtures/otlp/sample-request.ts';

const LEN = 2;
const key = (field: number, wireType: number) => (field << 3) | wireType;

/** Wraps span bytes into request > resource_spans > scope_spans > spans. */
function requestAround(spanBytes: Uint8Array): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(key(1, LEN)).fork().uint32(key(2, LEN)).fork().uint32(key(2, LEN)).bytes(spanBytes).ldelim().ldelim();
  return w.finish();
}

function spanBytes(extra: (w: protobuf.Writer) => void): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(key(1, LEN)).bytes(Buffer.from(TRACE_ID, 'hex'));
  w.uint32(key(2, LEN)).bytes(Buffer.from('0102030405060708', 'hex'));
  w.uint32(key(5, LEN)).string('s');
  extra(w);
  return w.finish();
}

function decodeError(body: Uint8Array): OtlpDecodeError {
  try {
    decodeTraceRequest(body, 'protobuf');
  } catch (error) {
    expect(error).toBeInstanceOf(OtlpDecodeError);
    return error as OtlpDecodeError;
  }
  throw new Error('expected an OtlpDecodeError');
}

describe('the protobuf decoder', () => {
  it('skips unknown fields of every wire type, at every level', () => {
    const span = spanBytes((w) => {
      w.uint32(key(99, 0)).uint64(123456789);
      w.uint32(key(98, 1)).fixed64(7);
      w.uint32(key(97, 2)).string('future field');
      w.uint32(key(96, 5)).fixed32(9);
      w.uint32(key(3, 2)).string('vendor=trace-state'); // trace_state: known, not kept
      w.uint32(key(10, 0)).uint32(4); // dropped_attributes_count
    });
    const w = protobuf.Writer.create();
    w.uint32(key(50, LEN)).string('unknown top-level field');
    const body = Buffer.concat([w.finish(), requestAround(span)]);
    const { spans, rejectedSpans } = decodeTraceRequest(body, 'protobuf');
    expect(rejectedSpans).toBe(0);
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ traceId: TRACE_ID, spanId: '0102030405060708', name: 's' });
  });

  it('reads int64 attribute values of any sign and size as numbers', () => {
    const values = [
      0,
      1,
      -1,
      127,
      128,
      -129,
      2 ** 31,
      -(2 ** 31) - 1,
      2 ** 40 + 3,
      -(2 ** 40) - 3,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
    ];
    const request = sampleRequest();
    request.resourceSpans[0].scopeSpans![0].spans = [
      sampleSpan({ attributes: values.map((value, i) => ({ key: `v${i}`, value: { intValue: String(value) } })) }),
    ];
    const { spans } = decodeTraceRequest(encodeOtlpProtobuf(request), 'protobuf');
    expect(Object.values(spans[0].attributes)).toEqual(values);
  });

  it('fails a truncated body with the byte where it ends', () => {
    const body = encodeOtlpProtobuf(sampleRequest());
    const error = decodeError(body.subarray(0, body.length - 10));
    expect(error.message).toMatch(/^protobuf: truncated message at byte \d+/);
    for (const cut of [1, 7, 40, 100, 300]) {
      expect(() => decodeTraceRequest(body.subarray(0, cut), 'protobuf')).toThrow(OtlpDecodeError);
    }
  });

  it('fails a known field sent with the wrong wire type, naming the field', () => {
    const span = spanBytes((w) => w.uint32(key(7, 0)).uint64(5)); // start_time_unix_nano must be fixed64
    const error = decodeError(requestAround(span));
    expect(error.message).toMatch(
      /^protobuf: Span.start_time_unix_nano has wire type varint \(0\) at byte \d+, expected i64 \(1\)/,
    );
    expect(decodeError(Uint8Array.from([key(1, 0), 5])).message).toContain(
      'ExportTraceServiceRequest.resource_spans has wire type varint',
    );
  });

  it('fails bytes that are not a protobuf message at all', () => {
    expect(decodeError(Buffer.from('{"resourceSpans": []}')).message).toMatch(/^protobuf: /);
    expect(decodeError(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])).message).toMatch(/^protobuf: /);
    expect(decodeError(Uint8Array.from([key(1, 7), 0])).message).toMatch(/^protobuf: .*wire type/);
    expect(decodeError(Uint8Array.from([key(0, 2), 0])).message).toMatch(/^protobuf: field number 0/);
  });

  it('refuses a sub-message that claims to run past its parent', () => {
    // resource_spans of length 3 holding a scope_spans that claims 10 bytes.
    expect(decodeError(Uint8Array.from([key(1, LEN), 3, key(2, LEN), 10, 0])).message).toMatch(
      /^protobuf: truncated message/,
    );
  });

  it('refuses AnyValue nesting deeper than 64 levels instead of exhausting the stack', () => {
    let value = protobuf.Writer.create().uint32(key(1, LEN)).string('leaf').finish();
    for (let i = 0; i < 100; i++) {
      const array = protobuf.Writer.create().uint32(key(1, LEN)).bytes(value).finish();
      value = protobuf.Writer.create().uint32(key(5, LEN)).bytes(array).finish();
    }
    const span = spanBytes((w) =>
      w.uint32(key(9, LEN)).fork().uint32(key(1, LEN)).string('deep').uint32(key(2, LEN)).bytes(value).ldelim(),
    );
    expect(decodeError(requestAround(span)).message).toMatch(/nested deeper than 64 levels/);
  });

  it('decodes a body given as a Uint8Array view into a larger buffer', () => {
    const body = encodeOtlpProtobuf(sampleRequest());
    const padded = new Uint8Array(body.length + 20);
    padded.set(body, 10);
    const view = new Uint8Array(padded.buffer, 10, body.length);
    expect(decodeTraceRequest(view, 'protobuf').spans).toHaveLength(4);
  });
});
