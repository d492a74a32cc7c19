import { describe, expect, it } from 'vitest';
import type { WriteRequest } from '../../../../collector/ledger/sqlite/ledger-writer.ts';
import { forTransfer, releaseTransferred } from '../../../../collector/ledger/sqlite/writer-transfer.ts';

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
    const moved = forTransfer(request);
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
    const moved = forTransfer({ op: 'appendSpans', rows: [{ traceId: 'a', count: 1, codec: 2, bytes: kept }] });
    expect(moved.transfer[0]).not.toBe(kept.buffer);
    structuredClone(moved.transfer[0], { transfer: moved.transfer });
    expect([...kept]).toEqual([7, 7, 7]);
  });

  it('are freed on the writer thread once written: the buffer is detached', () => {
    const moved = forTransfer(heldRows().request);
    releaseTransferred(moved.request);
    expect((moved.transfer[0] as ArrayBuffer).detached).toBe(true);
    releaseTransferred(moved.request); // twice is harmless
  });

  it('leave other requests as they are, with nothing to move', () => {
    const request: WriteRequest = { op: 'releaseTraces', traceIds: ['a'] };
    expect(forTransfer(request)).toEqual({ request, transfer: [] });
    releaseTransferred(request);
  });
});
