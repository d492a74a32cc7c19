/**
 * Buffers that one thread owns outright: no view of them exists but those its owner made and
 * keeps track of (the records' JSON a recorder thread answers with, moved to the event loop). Such
 * a buffer can move to another thread and back instead of being copied: the ledger's writer thread
 * writes records straight from them (sqlite/writer-transfer.ts). A buffer not marked here may be
 * shared with views no one tracks (a slice of Node's buffer pool, say), so it is copied.
 */
const owned = new WeakSet<ArrayBuffer>();

/** Marks a buffer its caller owns outright: it may be moved to another thread and back. */
export function markOwned(buffer: ArrayBuffer): void {
  owned.add(buffer);
}

/** Whether a buffer may be moved (marked, and neither detached nor shared). */
export function isOwned(buffer: ArrayBufferLike): buffer is ArrayBuffer {
  return buffer instanceof ArrayBuffer && !buffer.detached && owned.has(buffer);
}
