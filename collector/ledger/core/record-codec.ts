/**
 * Interaction records compressed by the collector, for the stores that keep them so
 * (`InteractionStore.recordCompression`): the record's JSON as UTF-8, compressed on the recorder
 * thread (below the event loop's priority) as it is built, and stored as the bytes they are.
 *
 * - `deflate` (the PostgreSQL store): raw DEFLATE at zlib's fastest level. Storing records was most
 *   of the server's time under sustained ingest, and most of that was the server compressing each
 *   one (pglz) before it kept it inline. A record of 6.7 KB becomes ~730 bytes in ~20 µs, and the
 *   server stores those as they are, in a third of the time (docs/benchmarks.md, "Scale-out").
 * - `lz4` (the SQLite store): one LZ4 block (lz4-block.ts). A record's bytes are written three times
 *   by SQLite (its page, the WAL frame, the checkpoint's copy into the ledger file); in ~4 µs a
 *   record of 6.7 KB becomes ~1 KB (~3 KB with varied text), and the writer and the checkpoint
 *   then move a seventh of the bytes (docs/benchmarks.md, "Ingest"). DEFLATE would take five times
 *   as long, on a thread that shares the machine with everything else.
 *
 * Reading one back costs an inflate or an LZ4 decode, less than parsing its JSON.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { freeBuffer } from '../../model/free-buffer.ts';
import { compressLz4, uncompressLz4 } from './lz4-block.ts';

/** How a store keeps records compressed. */
export type RecordCompression = 'deflate' | 'lz4';

/**
 * Level 1 with a 16 KiB window: on records of the benchmark's agents as small as the default
 * level 6 to within 7 %, in two thirds of the time. Inflating takes zlib's default window, which
 * reads any smaller one, so the options can change without a new format.
 */
const DEFLATE_OPTIONS = { level: 1, windowBits: 14, memLevel: 7 } as const;

export function deflateRecord(json: string | Uint8Array): Buffer {
  return deflateRawSync(json, DEFLATE_OPTIONS);
}

/** The record's JSON text from its compressed bytes. */
export function inflateRecord(bytes: Uint8Array): string {
  return inflateRawSync(bytes).toString('utf8');
}

/** A record's JSON compressed as one LZ4 block (throws when lz4-napi does not load). */
export function compressRecordLz4(json: string | Uint8Array): Uint8Array {
  return compressLz4(typeof json === 'string' ? Buffer.from(json, 'utf8') : json);
}

/** The record's JSON text from the LZ4 block `compressRecordLz4` wrote. */
export function uncompressRecordLz4(bytes: Uint8Array): string {
  const json = uncompressLz4(bytes);
  return Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8');
}

export function compressRecord(json: string | Uint8Array, compression: RecordCompression): Uint8Array {
  return compression === 'lz4' ? compressRecordLz4(json) : deflateRecord(json);
}

/**
 * Each row's `json` compressed, the results copied back to back into one buffer of exactly their
 * size (it may move between threads whole): each row's `compressed` becomes a view of it.
 */
export function compressRecords(
  rows: Array<{ json: string | Uint8Array; compressed?: Uint8Array }>,
  compression: RecordCompression,
): ArrayBuffer | undefined {
  if (rows.length === 0) return undefined;
  const compressed = rows.map((row) => compressRecord(row.json, compression));
  let total = 0;
  for (const bytes of compressed) total += bytes.byteLength;
  const together = new Uint8Array(new ArrayBuffer(total));
  let at = 0;
  rows.forEach((row, i) => {
    together.set(compressed[i], at);
    row.compressed = together.subarray(at, at + compressed[i].byteLength);
    at += compressed[i].byteLength;
    freeAlone(compressed[i]);
  });
  return together.buffer;
}

/**
 * Frees a compressor's output once copied, when it is the only view of its memory: LZ4's comes from
 * the binding's own allocator (mimalloc), which otherwise keeps it until the thread's garbage
 * collector finalizes the buffer (tens of MiB of a recorder thread under sustained ingest).
 */
function freeAlone(bytes: Uint8Array): void {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) freeBuffer(bytes.buffer);
}
