/**
 * How every ledger store encodes spans (pending and late). Each row names its codec, so rows
 * written in an earlier codec stay readable:
 *
 * - `CODEC_OTLP_PROTOBUF` (2): the spans of one trace as the collector received them, an OTLP
 *   ExportTraceServiceRequest cut from the received request (`collector/model/otlp-protobuf/`).
 *   Nothing is encoded to store them, and decoding them is the collector's own OTLP decoder
 *   (faster than the V8 deserializer, docs/benchmarks.md). Spans received as OTLP/protobuf are
 *   stored this way.
 * - `CODEC_OTLP_PROTOBUF_DEFLATE` (3): codec 2's bytes compressed with raw DEFLATE
 *   (`compressSpanRow`). The PostgreSQL store keeps received spans this way: the bytes go over the
 *   network, through the server's write-ahead log and into TOAST chunks of 2 KB each, so a third of
 *   them (realistic conversation text; a tenth for repetitive text) means a third of that work. The SQLite store, whose
 *   span log costs little per byte, keeps codec 2 and spends no CPU time on compression.
 * - `CODEC_V8` (1): the V8 serializer (`node:v8`), for spans given decoded (received as OTLP/JSON,
 *   late spans, tests). It keeps every attribute type as it is (Uint8Array included) and writes a
 *   span's shared `origin` once per row. Node documents the format as backward-compatible.
 *
 * Decoded byte arrays of codec 1 are views into the row's buffer (V8 does not copy them): a span
 * holding one keeps its row's bytes alive until the span itself is dropped. Codec 2 copies them.
 */
import { deserialize, serialize } from 'node:v8';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { SpanData } from '../../model/span.ts';
import { createSpanRejections } from '../../model/span-rejections.ts';
import { decodeProtobufRequest } from '../../model/otlp-protobuf/decode-request.ts';
import { LedgerStoreError } from '../errors.ts';

export const CODEC_V8 = 1;
export const CODEC_OTLP_PROTOBUF = 2;
export const CODEC_OTLP_PROTOBUF_DEFLATE = 3;

/**
 * Codec 3's compression: raw DEFLATE at level 1 (zlib's fastest) with a 16 KiB window, as large
 * as a typical trace's bytes (zlib's default 32 KiB compressed them no smaller). Decompressing
 * takes the same window size.
 */
const DEFLATE_OPTIONS = { level: 1, windowBits: 14, memLevel: 7 } as const;

/** A row of codec 2 with its bytes compressed (codec 3); a row of another codec as it is. */
export function compressSpanRow<T extends EncodedSpans>(row: T): T {
  if (row.codec !== CODEC_OTLP_PROTOBUF) return row;
  return { ...row, codec: CODEC_OTLP_PROTOBUF_DEFLATE, bytes: deflateRawSync(row.bytes, DEFLATE_OPTIONS) };
}

export function encodeSpans(spans: SpanData[]): Uint8Array {
  try {
    return serialize(spans);
  } catch (error) {
    throw new LedgerStoreError(
      `ledger: cannot encode spans: ${(error as Error).message} (span values must be OTLP attribute values)`,
      { cause: error },
    );
  }
}

/** Stored spans as a store reads them: one row's bytes and the codec they are in. */
export interface EncodedSpans {
  codec: number;
  bytes: Uint8Array;
}

/** Every span of `rows`, in order. */
export function decodeEncodedSpans(rows: readonly EncodedSpans[], where: string): SpanData[] {
  const spans: SpanData[] = [];
  for (const row of rows) for (const span of decodeSpans(row.codec, row.bytes, where)) spans.push(span);
  return spans;
}

export function decodeSpans(codec: number, bytes: Uint8Array, where: string): SpanData[] {
  if (codec === CODEC_OTLP_PROTOBUF) return decodeOtlp(bytes, where);
  if (codec === CODEC_OTLP_PROTOBUF_DEFLATE) return decodeOtlp(bytes, where, true);
  if (codec !== CODEC_V8) {
    throw new LedgerStoreError(`ledger ${where}: unknown span codec ${codec} (written by a newer Evalon?)`);
  }
  return deserialize(bytes) as SpanData[];
}

function decodeOtlp(bytes: Uint8Array, where: string, compressed = false): SpanData[] {
  const rejections = createSpanRejections();
  let spans: SpanData[];
  try {
    spans = decodeProtobufRequest(compressed ? inflateRawSync(bytes, DEFLATE_OPTIONS) : bytes, rejections);
  } catch (error) {
    throw new LedgerStoreError(`ledger ${where}: stored spans cannot be decoded: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // The receiver checked these bytes before they were stored: a refused span means damage.
  const refused = rejections.message();
  if (refused !== undefined) throw new LedgerStoreError(`ledger ${where}: stored spans are damaged: ${refused}`);
  return spans;
}
