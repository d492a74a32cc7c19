/**
 * LZ4 block compression for the ledger's stored spans (codec 4, span-codec.ts), from `lz4-napi`
 * (a well-kept binding of the Rust `lz4_flex` crate, prebuilt for the platforms Node runs on).
 * The format: the uncompressed length as 4 bytes, little-endian, then one LZ4 block — what
 * `lz4_flex::compress_prepend_size` writes, and what LZ4 libraries elsewhere read as a
 * size-prefixed block.
 *
 * Why not `node:zlib`: its one-shot DEFLATE sets up a compression context on every call, which is
 * most of the cost for a trace of ~14 KB (~60 µs a trace, against ~5–40 µs here, the event loop's
 * time on the path that acknowledges spans); its zstd functions are still experimental.
 *
 * The binding is loaded on first use: a collector with a SQLite ledger never compresses spans.
 * Where its native part does not load, `lz4Available` is false and the caller keeps DEFLATE.
 */
import { createRequire } from 'node:module';

interface Lz4Binding {
  compressSync(data: Buffer): Buffer;
  uncompressSync(data: Uint8Array): Buffer;
}

/** LZ4 cannot shrink data more than this (one byte of a block encodes at most ~255). */
const MAX_RATIO = 256;
const PREFIX_BYTES = 4;

let binding: Lz4Binding | null | undefined;
let loadError: string | undefined;

function load(): Lz4Binding | null {
  if (binding !== undefined) return binding;
  try {
    binding = createRequire(import.meta.url)('lz4-napi') as Lz4Binding;
  } catch (error) {
    binding = null;
    loadError = (error as Error).message.split('\n')[0];
  }
  return binding;
}

/** Whether LZ4 is there to compress with (loads the binding the first time). */
export function lz4Available(): boolean {
  return load() !== null;
}

/** Why LZ4 is not available (after `lz4Available` said so). */
export function lz4LoadError(): string | undefined {
  return loadError;
}

export function compressLz4(bytes: Uint8Array): Uint8Array {
  const lz4 = load();
  if (!lz4) throw new Error(`LZ4 is not available: ${loadError}`);
  return lz4.compressSync(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/**
 * The bytes `compressLz4` was given. Throws on bytes it did not write: a length no block of this
 * size could hold (checked before anything is allocated for it), or a block that does not decode
 * to exactly that length.
 */
export function uncompressLz4(compressed: Uint8Array): Uint8Array {
  const lz4 = load();
  if (!lz4) throw new Error(`spans compressed with LZ4 cannot be read here: lz4-napi does not load (${loadError})`);
  if (compressed.byteLength < PREFIX_BYTES) throw new Error('LZ4 block shorter than its length prefix');
  const view = new DataView(compressed.buffer, compressed.byteOffset, compressed.byteLength);
  const length = view.getUint32(0, true);
  if (length > (compressed.byteLength - PREFIX_BYTES) * MAX_RATIO + MAX_RATIO) {
    throw new Error(`LZ4 block of ${compressed.byteLength} bytes claims ${length} uncompressed`);
  }
  const bytes = lz4.uncompressSync(compressed);
  if (bytes.byteLength !== length) {
    throw new Error(`LZ4 block decoded to ${bytes.byteLength} bytes, its prefix says ${length}`);
  }
  return bytes;
}
