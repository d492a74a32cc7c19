/**
 * Buffers of a megabyte and more that are used again instead of allocated again: every OTLP
 * request passes through a few of them (its body, its cut by trace, its copy for the ledger's
 * writer thread). A fresh buffer that size is new memory from the system: the kernel maps and zeroes
 * every page of it on first touch, which cost the collector more than copying the bytes into it
 * (measured in docs/benchmarks.md, "Ingest"). A pool keeps a bounded number of idle bytes, by size
 * class: from `MIN_POOLED_BYTES`, four classes to each doubling (1, 1.25, 1.5 and 1.75 times a power
 * of two), so that a buffer is at most a quarter larger than asked for, not up to twice as large (a
 * 1.37 MiB request took 2 MiB). A take is served from its own class or the next one up; past the
 * bound a returned buffer is freed at once.
 *
 * Ownership: `take` hands out a buffer of its own (no one else has a view of it); whoever holds it
 * last gives it back once, with `give`, and keeps no view of it afterwards. A buffer may travel to
 * another thread and back (postMessage with transfer) before it is given back: it comes back as
 * another ArrayBuffer object, so the pool counts what it lent per size class rather than by
 * identity. A buffer of a size it did not lend, or one already idle, is ignored (left to the
 * garbage collector).
 *
 * The collector's own uses share one pool per thread (`threadBufferPool`): request bodies, cuts by
 * trace, recorder jobs, the writer's transfers and span log reads on the event loop draw from one
 * idle budget, so that what one use gave back serves another, and the idle bytes are bounded once
 * rather than once per use (five pools of 16 MiB each held 45 MiB idle at the peak of a burst).
 */
import { freeBuffer } from './free-buffer.ts';

/** Below this a buffer comes from Node's allocator as usual: small ones are cheap to allocate. */
export const MIN_POOLED_BYTES = 64 * 1024;
/** Idle bytes a pool keeps at most unless told otherwise. */
export const DEFAULT_POOL_IDLE_BYTES = 16 * 1024 * 1024;

export interface BufferPool {
  /** A buffer of exactly `size` bytes (contents undefined), at offset 0 of its own ArrayBuffer. */
  take(size: number): Buffer;
  /** Gives back the ArrayBuffer of a buffer `take` handed out. */
  give(buffer: ArrayBufferLike): void;
  /** Bytes idle in the pool now. */
  readonly idleBytes: number;
}

/** This thread's pool (module state is per thread: a worker that imports this has its own). */
let threadPool: BufferPool | undefined;

/**
 * Idle bytes the thread's pool keeps at most: twice a single use's, as the uses' idle buffers come
 * back at different moments (with 16 MiB the collector took 2.5 times the page faults of separate
 * pools under sustained ingest; with 32 MiB 1.2-1.5 times, docs/benchmarks.md).
 */
export const THREAD_POOL_IDLE_BYTES = 32 * 1024 * 1024;

/** The pool every user on this thread shares. */
export function threadBufferPool(): BufferPool {
  threadPool ??= createBufferPool(THREAD_POOL_IDLE_BYTES);
  return threadPool;
}

export function createBufferPool(maxIdleBytes = DEFAULT_POOL_IDLE_BYTES): BufferPool {
  const idle = new Map<number, ArrayBuffer[]>();
  const idleSet = new WeakSet<ArrayBuffer>();
  /** Buffers out of the pool now, by size class: how many may come back. */
  const lent = new Map<number, number>();
  let idleBytes = 0;

  return {
    get idleBytes() {
      return idleBytes;
    },

    take(size) {
      if (size < MIN_POOLED_BYTES) return Buffer.allocUnsafeSlow(size);
      const own = sizeClass(size);
      const reused = idle.get(own)?.pop() ?? idle.get(nextSizeClass(own))?.pop();
      if (reused) {
        idleBytes -= reused.byteLength;
        idleSet.delete(reused);
      }
      const buffer = reused ?? new ArrayBuffer(own);
      lent.set(buffer.byteLength, (lent.get(buffer.byteLength) ?? 0) + 1);
      return Buffer.from(buffer, 0, size);
    },

    give(buffer) {
      if (!(buffer instanceof ArrayBuffer) || buffer.detached || idleSet.has(buffer)) return;
      const capacity = buffer.byteLength;
      const out = lent.get(capacity) ?? 0;
      if (out === 0) return;
      lent.set(capacity, out - 1);
      if (idleBytes + capacity > maxIdleBytes) return freeBuffer(buffer);
      const list = idle.get(capacity) ?? [];
      if (list.length === 0) idle.set(capacity, list);
      list.push(buffer);
      idleSet.add(buffer);
      idleBytes += capacity;
    },
  };
}

/**
 * `parts` copied back to back into one buffer taken from `pool`, and each part's copy (a view of
 * it), in order: what moves to another thread in one transfer, or a request body put together.
 */
export function copyTogether(pool: BufferPool, parts: readonly Uint8Array[]): { bytes: Buffer; copies: Buffer[] } {
  let total = 0;
  for (const part of parts) total += part.byteLength;
  // Never an empty buffer: one of its own, which a transfer can move, whatever the parts.
  const bytes = pool.take(Math.max(total, 1)).subarray(0, total);
  const copies: Buffer[] = [];
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    copies.push(bytes.subarray(at, at + part.byteLength));
    at += part.byteLength;
  }
  return { bytes, copies };
}

/** Size classes to each doubling of size. */
const CLASSES_PER_DOUBLING = 4;

/** The size class a size is rounded up to: a multiple of a quarter of the power of two below it. */
export function sizeClass(size: number): number {
  const step = 2 ** Math.floor(Math.log2(size)) / CLASSES_PER_DOUBLING;
  return Math.ceil(size / step) * step;
}

/** The class after a class (a class is its own size class). */
function nextSizeClass(capacity: number): number {
  return sizeClass(capacity + 1);
}
