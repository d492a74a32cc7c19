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
 *   bytes is copied like span bytes; JSON as text is posted as it is.
 */
import { copyTogether, type BufferPool } from '../../model/buffer-pool.ts';
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

function recordsForTransfer(request: Extract<WriteRequest, { op: 'putInteractions' }>, pool: BufferPool): Transfer {
  const moved: ArrayBuffer[] = [];
  const movedIndex = new Map<ArrayBuffer, number>();
  const restore: MovedJson[] = [];
  const copied: Uint8Array[] = [];
  for (const row of request.rows) {
    const json = row.json;
    if (typeof json === 'string') continue;
    if (!isOwned(json.buffer)) {
      copied.push(json);
      continue;
    }
    let index = movedIndex.get(json.buffer);
    if (index === undefined) {
      index = moved.push(json.buffer) - 1;
      movedIndex.set(json.buffer, index);
    }
    restore.push({ row, buffer: index, byteOffset: json.byteOffset, byteLength: json.byteLength });
  }
  if (moved.length === 0 && copied.length === 0) return untouched(request);
  let rows = request.rows;
  let pooled: ArrayBuffer | undefined;
  if (copied.length > 0) {
    const { bytes, copies } = copyTogether(pool, copied);
    pooled = bytes.buffer as ArrayBuffer;
    const copyOf = new Map(copied.map((json, i) => [json, copies[i]]));
    rows = request.rows.map((row) => {
      const copy = typeof row.json === 'string' ? undefined : copyOf.get(row.json);
      return copy ? { ...row, json: copy } : row;
    });
  }
  return {
    request: { ...request, rows },
    buffers: pooled ? [...moved, pooled] : moved,
    returned(buffers) {
      for (const { row, buffer, byteOffset, byteLength } of restore)
        row.json = new Uint8Array(buffers[buffer], byteOffset, byteLength);
      if (pooled) pool.give(buffers[moved.length]);
    },
  };
}
