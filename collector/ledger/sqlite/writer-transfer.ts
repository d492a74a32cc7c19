/**
 * How span bytes cross to the writer thread and back. A buffer handed to another thread lives
 * until that thread's garbage collector runs, and the writer's rarely does (it allocates little):
 * buffers shared with it or moved to it piled up by the hundred, ~1.4 MB each (measured: a
 * collector holding 100,000 pending traces kept ~650 MB of them). So the bytes of a write are
 * copied into one buffer from the store's pool, moved to the writer, and moved back with the
 * writer's answer, written or not: the next write uses it again (a fresh buffer of that size costs
 * more in page faults than the copy, docs/benchmarks.md).
 */
import { copyTogether, type BufferPool } from '../../model/buffer-pool.ts';
import type { WriteRequest } from './ledger-writer.ts';

/**
 * The request as it is posted, and the buffer moved with it: every row's bytes copied, together,
 * into one buffer taken from `pool` (rows are views into buffers the collector keeps, such as a
 * received request's traces while they are held in memory; a copy is a fraction of a millisecond a
 * request).
 */
export function forTransfer(
  request: WriteRequest,
  pool: BufferPool,
): { request: WriteRequest; transfer: ArrayBuffer[] } {
  if (request.op === 'putInteractions') return recordsForTransfer(request, pool);
  if (request.op !== 'appendSpans' && request.op !== 'putLateSpans') return { request, transfer: [] };
  if (!request.rows.some((row) => row.bytes.byteLength > 0)) return { request, transfer: [] };
  const { bytes, copies } = copyTogether(
    pool,
    request.rows.map((row) => row.bytes),
  );
  const rows = request.rows.map((row, i) => ({ ...row, bytes: copies[i] }));
  return { request: { ...request, rows } as WriteRequest, transfer: [bytes.buffer as ArrayBuffer] };
}

/**
 * Records whose JSON is UTF-8 bytes (built on the recorder thread) have the bytes copied into one
 * buffer from `pool` the same way; JSON as text is posted as it is.
 */
function recordsForTransfer(
  request: Extract<WriteRequest, { op: 'putInteractions' }>,
  pool: BufferPool,
): { request: WriteRequest; transfer: ArrayBuffer[] } {
  const encoded = request.rows.flatMap((row) => (typeof row.json === 'string' ? [] : [row.json]));
  if (encoded.length === 0) return { request, transfer: [] };
  const { bytes, copies } = copyTogether(pool, encoded);
  let next = 0;
  const rows = request.rows.map((row) => (typeof row.json === 'string' ? row : { ...row, json: copies[next++] }));
  return { request: { ...request, rows }, transfer: [bytes.buffer as ArrayBuffer] };
}

/** The buffer a request's rows were moved in (on the writer thread), to move back once written. */
export function transferredBuffer(request: WriteRequest): ArrayBuffer | undefined {
  let buffer: ArrayBufferLike | undefined;
  if (request.op === 'appendSpans' || request.op === 'putLateSpans') buffer = request.rows[0]?.bytes.buffer;
  else if (request.op === 'putInteractions') {
    const bytes = request.rows.find((row) => typeof row.json !== 'string')?.json;
    buffer = typeof bytes === 'object' ? bytes.buffer : undefined;
  }
  return buffer instanceof ArrayBuffer && !buffer.detached ? buffer : undefined;
}
