import { describe, expect, it } from 'vitest';
import {
  CODEC_OTLP_PROTOBUF,
  CODEC_OTLP_PROTOBUF_DEFLATE,
  CODEC_V8,
  compressSpanRow,
  decodeSpans,
  encodeSpans,
} from '../../../../collector/ledger/core/span-codec.ts';
import { LedgerStoreError } from '../../../../collector/ledger/errors.ts';
import { buildRealisticSpans, serializeProtobuf } from '../../../fixtures/otlp/realistic-spans.ts';
import { plainSpan, TRACE_A } from '../../../helpers/ledger-fixtures.ts';

describe('span codecs', () => {
  it('compresses received spans (codec 3) and decodes them to the same spans as codec 2', async () => {
    const bytes = serializeProtobuf(await buildRealisticSpans(10));
    const row = { traceId: 't', count: 10, codec: CODEC_OTLP_PROTOBUF, bytes };
    const compressed = compressSpanRow(row);
    expect(compressed).toMatchObject({ traceId: 't', count: 10, codec: CODEC_OTLP_PROTOBUF_DEFLATE });
    expect(compressed.bytes.byteLength).toBeLessThan(bytes.byteLength / 2);
    const spans = decodeSpans(CODEC_OTLP_PROTOBUF, bytes, 'test');
    expect(spans).toHaveLength(10);
    expect(decodeSpans(compressed.codec, compressed.bytes, 'test')).toStrictEqual(spans);
  });

  it('leaves rows of another codec as they are', () => {
    const row = { codec: CODEC_V8, bytes: encodeSpans([plainSpan(TRACE_A, 1)]) };
    expect(compressSpanRow(row)).toBe(row);
  });

  it('names the ledger when compressed bytes are damaged or cut short', async () => {
    const { bytes } = compressSpanRow({
      codec: CODEC_OTLP_PROTOBUF,
      bytes: serializeProtobuf(await buildRealisticSpans(10)),
    });
    const flipped = Uint8Array.from(bytes);
    for (let at = 0; at < flipped.length; at += 7) flipped[at] ^= 0xa5;
    for (const damaged of [flipped, bytes.subarray(0, bytes.length >> 1)]) {
      expect(() => decodeSpans(CODEC_OTLP_PROTOBUF_DEFLATE, damaged, 'ledger.db')).toThrow(LedgerStoreError);
      expect(() => decodeSpans(CODEC_OTLP_PROTOBUF_DEFLATE, damaged, 'ledger.db')).toThrow(
        /^ledger ledger\.db: stored spans (cannot be decoded|are damaged)/,
      );
    }
  });

  it('refuses a codec it does not know, naming it', () => {
    expect(() => decodeSpans(9, new Uint8Array(1), 'ledger.db')).toThrow(
      'ledger ledger.db: unknown span codec 9 (written by a newer Evalon?)',
    );
  });
});
