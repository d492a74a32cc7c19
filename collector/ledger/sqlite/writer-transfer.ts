/**
 * How span bytes cross to the writer thread, and how they are let go there. A buffer handed to
 * another thread lives until that thread's garbage collector runs, and the writer's rarely does
 * (it allocates little): buffers shared with it or moved to it piled up by the hundred, ~1.4 MB
 * each (measured: a collector holding 100,000 pending traces kept ~650 MB of them). So the bytes of
 * a write are moved to the writer in a buffer of its own, and the writer frees it (detaches
 * it) as soon as the write is done, committed or not.
 */
import { freeBuffer } from '../../model/free-buffer.ts';
import type { WriteRequest } from './ledger-writer.ts';

/**
 * The request as it is posted, and the buffer moved with it: every row's bytes copied, together,
 * into one new buffer (rows are views into buffers the collector keeps, such as a received
 * request's traces while they are held in memory; a copy is a fraction of a millisecond a request).
 */
export function forTransfer(request: WriteRequest): { request: WriteRequest; transfer: ArrayBuffer[] } {
  if (request.op !== 'appendSpans' && request.op !== 'putLateSpans') return { request, transfer: [] };
  let total = 0;
  for (const { bytes } of request.rows) total += bytes.byteLength;
  const copy = new Uint8Array(total);
  let at = 0;
  const rows = request.rows.map((row) => {
    const start = at;
    copy.set(row.bytes, start);
    at += row.bytes.byteLength;
    return { ...row, bytes: copy.subarray(start, at) };
  });
  return { request: { ...request, rows } as WriteRequest, transfer: [copy.buffer] };
}

/** Frees the buffers a request's rows were moved in (on the writer thread, once it is written). */
export function releaseTransferred(request: WriteRequest): void {
  if (request.op !== 'appendSpans' && request.op !== 'putLateSpans') return;
  for (const { bytes } of request.rows) freeBuffer(bytes.buffer);
}
