import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  CODEC_OTLP_PROTOBUF,
  CODEC_OTLP_PROTOBUF_DEFLATE,
  CODEC_OTLP_PROTOBUF_LZ4,
  CODEC_V8,
  compressSpanRow,
  decodeSpans,
  encodeSpans,
} from '../../../../collector/ledger/core/span-codec.ts';
import { LedgerStoreError } from '../../../../collector/ledger/errors.ts';
import { buildRealisticSpans, serializeProtobuf } from '../../../fixtures/otlp/realistic-spans.ts';
import { plainSpan, TRACE_A } from '../../../helpers/ledger-fixtures.ts';

describe('span codecs', () => {
  it('compresses received spans (codec 4, LZ4) and decodes them to the same spans as codec 2', async () => {
    const bytes = serializeProtobuf(await buildRealisticSpans(10));
    const row = { traceId: 't', count: 10, codec: CODEC_OTLP_PROTOBUF, bytes };
    const compressed = compressSpanRow(row);
    expect(compressed).toMatchObject({ traceId: 't', count: 10, codec: CODEC_OTLP_PROTOBUF_LZ4 });
    expect(compressed.bytes.byteLength).toBeLessThan(bytes.byteLength / 2);
    // A size-prefixed block: the received length, little-endian, then the block.
    expect(Buffer.from(compressed.bytes).readUInt32LE(0)).toBe(bytes.byteLength);
    const spans = decodeSpans(CODEC_OTLP_PROTOBUF, bytes, 'test');
    expect(spans).toHaveLength(10);
    expect(decodeSpans(compressed.codec, compressed.bytes, 'test')).toStrictEqual(spans);
  });

  it('still reads spans an earlier version compressed with DEFLATE (codec 3)', async () => {
    const bytes = serializeProtobuf(await buildRealisticSpans(10));
    const deflated = deflateRawSync(bytes, { level: 1, windowBits: 14, memLevel: 7 });
    expect(decodeSpans(CODEC_OTLP_PROTOBUF_DEFLATE, deflated, 'test')).toStrictEqual(
      decodeSpans(CODEC_OTLP_PROTOBUF, bytes, 'test'),
    );
  });

  it('leaves rows of another codec as they are', () => {
    const row = { codec: CODEC_V8, bytes: encodeSpans([plainSpan(TRACE_A, 1)]) };
    expect(compressSpanRow(row)).toBe(row);
  });

  it('names the ledger when compressed bytes are damaged or cut short', async () => {
    const received = serializeProtobuf(await buildRealisticSpans(10));
    const compressed = [
      { codec: CODEC_OTLP_PROTOBUF_LZ4, bytes: compressSpanRow({ codec: CODEC_OTLP_PROTOBUF, bytes: received }).bytes },
      { codec: CODEC_OTLP_PROTOBUF_DEFLATE, bytes: deflateRawSync(received, { level: 1, windowBits: 14 }) },
    ];
    for (const { codec, bytes } of compressed) {
      const flipped = Uint8Array.from(bytes);
      for (let at = 0; at < flipped.length; at += 7) flipped[at] ^= 0xa5;
      for (const damaged of [flipped, bytes.subarray(0, bytes.length >> 1), bytes.subarray(0, 2)]) {
        expect(() => decodeSpans(codec, damaged, 'ledger.db')).toThrow(LedgerStoreError);
        expect(() => decodeSpans(codec, damaged, 'ledger.db')).toThrow(
          /^ledger ledger\.db: stored spans (cannot be decoded|are damaged)/,
        );
      }
    }
  });

  it('refuses an LZ4 block whose length prefix is damaged before making room for it', async () => {
    const { bytes } = compressSpanRow({
      codec: CODEC_OTLP_PROTOBUF,
      bytes: serializeProtobuf(await buildRealisticSpans(10)),
    });
    const claimed = Buffer.from(bytes);
    claimed.writeUInt32LE(0x7fff_ffff, 0);
    expect(() => decodeSpans(CODEC_OTLP_PROTOBUF_LZ4, claimed, 'ledger.db')).toThrow(
      'ledger ledger.db: stored spans cannot be decoded: ' +
        `LZ4 block of ${claimed.length} bytes claims 2147483647 uncompressed`,
    );
    const longer = Buffer.from(bytes);
    longer.writeUInt32LE(longer.readUInt32LE(0) + 1, 0);
    expect(() => decodeSpans(CODEC_OTLP_PROTOBUF_LZ4, longer, 'ledger.db')).toThrow(
      /^ledger ledger\.db: stored spans cannot be decoded: /,
    );
  });

  it('refuses a codec it does not know, naming it', () => {
    expect(() => decodeSpans(9, new Uint8Array(1), 'ledger.db')).toThrow(
      'ledger ledger.db: unknown span codec 9 (written by a newer Evalon?)',
    );
  });
});
