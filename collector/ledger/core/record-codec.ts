/**
 * Interaction records compressed, for a store that keeps them so (`InteractionStore.compressesRecords`:
 * the PostgreSQL store): the record's JSON as UTF-8, in raw DEFLATE at zlib's fastest level.
 *
 * Why the collector compresses rather than the server: storing records was most of the server's
 * time under sustained ingest, and most of that was the server compressing each one (pglz) before
 * it kept it inline. Compressed here, on the recorder thread (below the event loop's priority), a
 * record of 6.7 KB becomes ~730 bytes in ~20 µs, and the server stores those as they are, in a
 * third of the time (docs/benchmarks.md, "Scale-out"). Reading one back costs an inflate, less
 * than parsing its JSON.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

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

/**
 * Each row's `json` compressed, the results copied back to back into one buffer of exactly their
 * size (it may move between threads whole): each row's `deflated` becomes a view of it.
 */
export function deflateRecords(
  rows: Array<{ json: string | Uint8Array; deflated?: Uint8Array }>,
): ArrayBuffer | undefined {
  if (rows.length === 0) return undefined;
  const compressed = rows.map((row) => deflateRecord(row.json));
  let total = 0;
  for (const bytes of compressed) total += bytes.byteLength;
  const together = new Uint8Array(new ArrayBuffer(total));
  let at = 0;
  rows.forEach((row, i) => {
    together.set(compressed[i], at);
    row.deflated = together.subarray(at, at + compressed[i].byteLength);
    at += compressed[i].byteLength;
  });
  return together.buffer;
}
