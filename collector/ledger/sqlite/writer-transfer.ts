/**
 * How bytes cross to the writer thread and back. A buffer handed to another thread lives until that
 * thread's garbage collector runs, and the writer's rarely does (it allocates little): buffers
 * shared with it or moved to it piled up by the hundred, ~1.4 MB each (measured: a collector
 * holding 100,000 pending traces kept ~650 MB of them). So every buffer a write moves to the writer
 * is moved back with the writer's answer, written or not:
 *
 * - span bytes (views into buffers the collector keeps, such as a received request's traces while
 *   they are held in memory) are copied into one buffer from the store's pool, which the next write
 *   uses again once it is back (a fresh buffer of that size costs more in page faults than the copy,
 *   docs/benchmarks.md);
 * - records' JSON in buffers the collector owns outright (`isOwned`: what the recorder thread
 *   answers with) moves as it is, not copied, and the caller's rows see it again once the write is
 *   answered (the next stage reads the records' content from those same bytes). Any other JSON as
 *   bytes is copied like span bytes; JSON as text is posted as it is;
 * - records compressed as the ledger keeps them (LZ4, by the recorder thread) go instead of their
 *   JSON, moved or copied the same way (and freed once back: nothing reads them after); their JSON
 *   stays with the caller.
 */
import { copyTogether, type BufferPool } from '../../model/buffer-pool.ts';
import { freeBuffer } from '../../model/free-buffer.ts';
import { isOwned } from '../../model/owned-buffers.ts';
import type { InteractionRow, WriteRequest } from './ledger-writer.ts';

/** A request as it is posted, the buffers moved with it, and what to do when they come back. */
export interface Transfer {
  request: WriteRequest;
  /** Moved to the writer with the request, and back with its answer in the same order. */
  buffers: ArrayBuffer[];
  /** Takes the buffers back (the writer's answer, written or not). */
  returned(buffers: ArrayBuffer[]): void;
}

export function forTransfer(request: WriteRequest, pool: BufferPool): Transfer {
  if (request.op === 'putInteractions') return recordsForTransfer(request, pool);
  if (request.op !== 'appendSpans' && request.op !== 'putLateSpans') return untouched(request);
  if (!request.rows.some((row) => row.bytes.byteLength > 0)) return untouched(request);
  const { bytes, copies } = copyTogether(
    pool,
    request.rows.map((row) => row.bytes),
  );
  const rows = request.rows.map((row, i) => ({ ...row, bytes: copies[i] }));
  return {
    request: { ...request, rows } as WriteRequest,
    buffers: [bytes.buffer as ArrayBuffer],
    returned: ([buffer]) => pool.give(buffer),
  };
}

function untouched(request: WriteRequest): Transfer {
  return { request, buffers: [], returned() {} };
}

/** Where a row's JSON was in a buffer that moved: the row sees it there again once it is back. */
interface MovedJson {
  row: InteractionRow;
  buffer: number;
  byteOffset: number;
  byteLength: number;
}

/**
 * A row compressed as the ledger keeps it (`row.compressed`) goes without its JSON, which stays
 * here for the next stage: the writer stores the compressed bytes. Any other row goes with its JSON.
 */
function recordsForTransfer(request: Extract<WriteRequest, { op: 'putInteractions' }>, pool: BufferPool): Transfer {
  const moved: ArrayBuffer[] = [];
  const movedIndex = new Map<ArrayBuffer, number>();
  const restore: MovedJson[] = [];
  const copied: Uint8Array[] = [];
  // Moved buffers of compressed records only: nothing reads them once written, freed when back.
  const compressedOnly = new Set<number>();
  const move = (buffer: ArrayBuffer): number => {
    let index = movedIndex.get(buffer);
    if (index === undefined) {
      index = moved.push(buffer) - 1;
      movedIndex.set(buffer, index);
    }
    return index;
  };
  for (const row of request.rows) {
    const bytes = row.compressed ?? row.json;
    if (typeof bytes === 'string') continue;
    if (!isOwned(bytes.buffer as ArrayBuffer)) copied.push(bytes);
    else if (row.compressed) compressedOnly.add(move(bytes.buffer as ArrayBuffer));
    else
      restore.push({
        row,
        buffer: move(bytes.buffer as ArrayBuffer),
        byteOffset: bytes.byteOffset,
        byteLength: bytes.byteLength,
      });
  }
  if (moved.length === 0 && copied.length === 0) return untouched(request);
  let pooled: ArrayBuffer | undefined;
  let copyOf = new Map<Uint8Array, Uint8Array>();
  if (copied.length > 0) {
    const { bytes, copies } = copyTogether(pool, copied);
    pooled = bytes.buffer as ArrayBuffer;
    copyOf = new Map(copied.map((original, i) => [original, copies[i]]));
  }
  const rewritten = copied.length > 0 || request.rows.some((row) => row.compressed);
  const rows = !rewritten
    ? request.rows
    : request.rows.map((row) => {
        if (row.compressed) return { ...row, json: '', compressed: copyOf.get(row.compressed) ?? row.compressed };
        const copy = typeof row.json === 'string' ? undefined : copyOf.get(row.json);
        return copy ? { ...row, json: copy } : row;
      });
  return {
    request: { ...request, rows },
    buffers: pooled ? [...moved, pooled] : moved,
    returned(buffers) {
      for (const { row, buffer, byteOffset, byteLength } of restore) {
        row.json = new Uint8Array(buffers[buffer], byteOffset, byteLength);
        compressedOnly.delete(buffer);
      }
      for (const buffer of compressedOnly) freeBuffer(buffers[buffer]);
      if (pooled) pool.give(buffers[moved.length]);
    },
  };
}
