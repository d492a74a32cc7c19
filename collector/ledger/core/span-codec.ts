/**
 * How every ledger store encodes spans (pending and late). Each row names its codec, so rows
 * written in an earlier codec stay readable:
 *
 * - `CODEC_OTLP_PROTOBUF` (2): the spans of one trace as the collector received them, an OTLP
 *   ExportTraceServiceRequest cut from the received request (`collector/model/otlp-protobuf/`).
 *   Nothing is encoded to store them, and decoding them is the collector's own OTLP decoder
 *   (faster than the V8 deserializer, docs/benchmarks.md). Spans received as OTLP/protobuf are
 *   stored this way.
 * - `CODEC_OTLP_PROTOBUF_LZ4` (4): codec 2's bytes compressed as one LZ4 block (`compressSpanRow`,
 *   lz4-block.ts). The PostgreSQL store keeps received spans this way: the bytes go over the
 *   network, through the server's write-ahead log and into TOAST chunks of 2 KB each, so less than
 *   half of them (realistic conversation text; a ninth for repetitive text) means that much less
 *   work. The SQLite store, whose span log costs little per byte, keeps codec 2 and spends no CPU
 *   time on compression.
 * - `CODEC_OTLP_PROTOBUF_DEFLATE` (3): codec 2's bytes compressed with raw DEFLATE, written by the
 *   PostgreSQL store before codec 4, and still where LZ4 does not load. A quarter smaller than
 *   codec 4 with realistic text, but compressing a trace cost the event loop 60–140 µs against
 *   5–40 µs: with PostgreSQL, the event loop compressing received spans was what bounded how fast
 *   spans were acknowledged (docs/benchmarks.md, "Scale-out").
 * - `CODEC_V8` (1): the V8 serializer (`node:v8`), for spans given decoded (received as OTLP/JSON,
 *   late spans, tests). It keeps every attribute type as it is (Uint8Array included) and writes a
 *   span's shared `origin` once per row. Node documents the format as backward-compatible.
 *
 * Decoded byte arrays of codec 1 are views into the row's buffer (V8 does not copy them): a span
 * holding one keeps its row's bytes alive until the span itself is dropped. Codec 2 copies them.
 */
import { readSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { SpanData } from '../../model/span.ts';
import { createSpanRejections } from '../../model/span-rejections.ts';
import { decodeProtobufRequest } from '../../model/otlp-protobuf/decode-request.ts';
import { LedgerStoreError } from '../errors.ts';
import { threadBufferPool } from '../../model/buffer-pool.ts';
import { compressLz4, lz4Available, lz4LoadError, uncompressLz4 } from './lz4-block.ts';

export const CODEC_V8 = 1;
export const CODEC_OTLP_PROTOBUF = 2;
export const CODEC_OTLP_PROTOBUF_DEFLATE = 3;
export const CODEC_OTLP_PROTOBUF_LZ4 = 4;

/**
 * Codec 3's compression: raw DEFLATE at level 1 (zlib's fastest) with a 16 KiB window, as large
 * as a typical trace's bytes (zlib's default 32 KiB compressed them no smaller). Decompressing
 * takes the same window size.
 */
const DEFLATE_OPTIONS = { level: 1, windowBits: 14, memLevel: 7 } as const;

let warnedNoLz4 = false;

/**
 * A row of codec 2 with its bytes compressed (codec 4, or 3 where LZ4 does not load: said once, as
 * a process warning); a row of another codec as it is.
 */
export function compressSpanRow<T extends EncodedSpans>(row: T): T {
  if (row.codec !== CODEC_OTLP_PROTOBUF) return row;
  if (lz4Available()) return { ...row, codec: CODEC_OTLP_PROTOBUF_LZ4, bytes: compressLz4(row.bytes) };
  if (!warnedNoLz4) {
    warnedNoLz4 = true;
    process.emitWarning(`lz4-napi does not load (${lz4LoadError()}): received spans are stored with DEFLATE`);
  }
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

/**
 * A stored row not read yet: where it is in a file the store keeps open (a SQLite ledger's span
 * log), so that any thread of the process reads it (the interactions processor's recorder thread,
 * instead of the event loop reading and copying it). `position` and `length` are the row's whole
 * frame in the file, which begins with the 32-bit little-endian `magic`; the row's bytes start
 * `skip` bytes in. The store keeps the file open and the frame where it is until the caller lets
 * go of the answer (`SpanStore.releaseEncodedSpans`).
 */
export interface LocatedSpans {
  codec: number;
  fd: number;
  position: number;
  length: number;
  skip: number;
  magic: number;
  /** The file, as errors name it. */
  file: string;
}

/** A stored row: its bytes, or where they are. */
export type StoredSpans = EncodedSpans | LocatedSpans;

export function isLocated(row: { codec: number }): row is LocatedSpans {
  return (row as LocatedSpans).fd !== undefined;
}

/** Frames side by side in a file are read together up to this many bytes. */
const MAX_READ_BYTES = 4 * 1024 * 1024;

/**
 * Reads the located rows of `rows` (frames side by side in one file with one positioned read) into
 * one buffer of this thread's pool, and answers every row with its bytes, in order; `giveBack` returns
 * the buffer once the bytes are decoded or copied.
 */
export function readStoredSpans(
  rows: readonly StoredSpans[],
  where: string,
): { rows: EncodedSpans[]; giveBack(): void } {
  const located: { row: LocatedSpans; index: number }[] = [];
  rows.forEach((row, index) => {
    if (isLocated(row)) located.push({ row, index });
  });
  if (located.length === 0) return { rows: rows as EncodedSpans[], giveBack() {} };
  let total = 0;
  for (const { row } of located) total += row.length;
  const pool = threadBufferPool();
  const buffer = pool.take(Math.max(total, 1));
  const answer = [...rows] as EncodedSpans[];
  located.sort((a, b) => a.row.fd - b.row.fd || a.row.position - b.row.position);
  let at = 0;
  try {
    for (let first = 0; first < located.length; ) {
      let last = first;
      let end = located[first].row.position + located[first].row.length;
      while (
        last + 1 < located.length &&
        located[last + 1].row.fd === located[first].row.fd &&
        located[last + 1].row.position === end &&
        end - located[first].row.position < MAX_READ_BYTES
      ) {
        last++;
        end += located[last].row.length;
      }
      const start = located[first].row;
      readFully(start, buffer, at, end - start.position, where);
      for (let i = first; i <= last; i++) {
        const { row, index } = located[i];
        const frame = at + row.position - start.position;
        if (buffer.readUInt32LE(frame) !== row.magic) throw damaged(row, where);
        answer[index] = { codec: row.codec, bytes: buffer.subarray(frame + row.skip, frame + row.length) };
      }
      at += end - start.position;
      first = last + 1;
    }
  } catch (error) {
    pool.give(buffer.buffer);
    throw error;
  }
  return { rows: answer, giveBack: () => pool.give(buffer.buffer) };
}

function readFully(from: LocatedSpans, into: Buffer, offset: number, length: number, where: string): void {
  let read = 0;
  try {
    while (read < length) {
      const got = readSync(from.fd, into, offset + read, length - read, from.position + read);
      if (got === 0) break;
      read += got;
    }
  } catch (error) {
    throw new LedgerStoreError(`ledger ${where}: cannot read ${from.file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (read < length) throw damaged({ ...from, position: from.position + read }, where);
}

const damaged = (row: Pick<LocatedSpans, 'file' | 'position'>, where: string) =>
  new LedgerStoreError(`ledger ${where}: stored spans are damaged: span log ${row.file} at ${row.position}`);

/** Every span of `rows`, in order. */
export function decodeEncodedSpans(rows: readonly EncodedSpans[], where: string): SpanData[] {
  const spans: SpanData[] = [];
  for (const row of rows) for (const span of decodeSpans(row.codec, row.bytes, where)) spans.push(span);
  return spans;
}

export function decodeSpans(codec: number, bytes: Uint8Array, where: string): SpanData[] {
  if (codec === CODEC_OTLP_PROTOBUF) return decodeOtlp(bytes, where);
  if (codec === CODEC_OTLP_PROTOBUF_DEFLATE) return decodeOtlp(bytes, where, 'deflate');
  if (codec === CODEC_OTLP_PROTOBUF_LZ4) return decodeOtlp(bytes, where, 'lz4');
  if (codec !== CODEC_V8) {
    throw new LedgerStoreError(`ledger ${where}: unknown span codec ${codec} (written by a newer Evalon?)`);
  }
  return deserialize(bytes) as SpanData[];
}

function decodeOtlp(bytes: Uint8Array, where: string, compressed?: 'deflate' | 'lz4'): SpanData[] {
  const rejections = createSpanRejections();
  let spans: SpanData[];
  try {
    spans = decodeProtobufRequest(uncompressed(bytes, compressed), rejections);
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

function uncompressed(bytes: Uint8Array, compressed: 'deflate' | 'lz4' | undefined): Uint8Array {
  if (compressed === 'deflate') return inflateRawSync(bytes, DEFLATE_OPTIONS);
  if (compressed === 'lz4') return uncompressLz4(bytes);
  return bytes;
}
