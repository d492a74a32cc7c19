import { describe, expect, it } from 'vitest';
import type { WriteRequest } from '../../../../collector/ledger/sqlite/ledger-writer.ts';
import { forTransfer, transferredBuffer } from '../../../../collector/ledger/sqlite/writer-transfer.ts';
import { createBufferPool, MIN_POOLED_BYTES } from '../../../../collector/model/buffer-pool.ts';

/** A received request's traces: rows that are views into one buffer the collector keeps. */
function heldRows(): { kept: Buffer; request: WriteRequest } {
  const kept = Buffer.allocUnsafeSlow(10);
  for (let i = 0; i < kept.length; i++) kept[i] = i;
  return {
    kept,
    request: {
      op: 'appendSpans',
      rows: [
        { traceId: 'a', count: 1, codec: 2, bytes: kept.subarray(0, 4) },
        { traceId: 'b', count: 2, codec: 2, bytes: kept.subarray(4, 10) },
      ],
    },
  };
}

describe('span bytes handed to the writer thread', () => {
  it('are copied into one buffer of their own, moved with the request, leaving the kept buffer whole', () => {
    const { kept, request } = heldRows();
    const moved = forTransfer(request, createBufferPool());
    expect(moved.transfer).toHaveLength(1);
    const rows = (moved.request as Extract<WriteRequest, { op: 'appendSpans' }>).rows;
    expect(rows.map((row) => [row.traceId, row.count, [...row.bytes]])).toEqual([
      ['a', 1, [0, 1, 2, 3]],
      ['b', 2, [4, 5, 6, 7, 8, 9]],
    ]);
    expect(rows.every((row) => row.bytes.buffer === moved.transfer[0])).toBe(true);
    // Moving the copy (as postMessage does) leaves what the collector keeps readable.
    structuredClone(moved.transfer[0], { transfer: moved.transfer });
    expect([...kept]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('include a single row that spans its whole buffer (a request of one trace), still copied', () => {
    const kept = Buffer.allocUnsafeSlow(3).fill(7);
    const moved = forTransfer(
      { op: 'appendSpans', rows: [{ traceId: 'a', count: 1, codec: 2, bytes: kept }] },
      createBufferPool(),
    );
    expect(moved.transfer[0]).not.toBe(kept.buffer);
    structuredClone(moved.transfer[0], { transfer: moved.transfer });
    expect([...kept]).toEqual([7, 7, 7]);
  });

  it('come back from the writer thread in the buffer they went in, which the next write uses again', () => {
    const pool = createBufferPool();
    const big = Buffer.alloc(MIN_POOLED_BYTES * 2, 1);
    const request: WriteRequest = { op: 'appendSpans', rows: [{ traceId: 'a', count: 1, codec: 2, bytes: big }] };
    const first = forTransfer(request, pool);
    // On the writer: the buffer to move back is the one the rows came in.
    const back = transferredBuffer(first.request)!;
    expect(back).toBe(first.transfer[0]);
    // Moved to the writer and back (postMessage both ways), then given to the pool.
    const away = structuredClone(back, { transfer: [back] });
    const returned = structuredClone(away, { transfer: [away] });
    pool.give(returned);
    expect(pool.idleBytes).toBe(returned.byteLength);
    const second = forTransfer(request, pool);
    expect(pool.idleBytes).toBe(0);
    expect(second.transfer[0]).toBe(returned);
    expect([...(second.request as Extract<WriteRequest, { op: 'appendSpans' }>).rows[0].bytes.subarray(0, 3)]).toEqual([
      1, 1, 1,
    ]);
  });

  it('leave other requests as they are, with nothing to move', () => {
    const request: WriteRequest = { op: 'releaseTraces', traceIds: ['a'] };
    expect(forTransfer(request, createBufferPool())).toEqual({ request, transfer: [] });
    expect(transferredBuffer(request)).toBeUndefined();
  });
});
