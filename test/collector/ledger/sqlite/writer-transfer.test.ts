import { describe, expect, it } from 'vitest';
import type { InteractionRow, WriteRequest } from '../../../../collector/ledger/sqlite/ledger-writer.ts';
import { forTransfer } from '../../../../collector/ledger/sqlite/writer-transfer.ts';
import { createBufferPool, MIN_POOLED_BYTES } from '../../../../collector/model/buffer-pool.ts';
import { markOwned } from '../../../../collector/model/owned-buffers.ts';

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

/** What postMessage does to moved buffers, there and back: new ArrayBuffer objects, the old ones detached. */
function thereAndBack(buffers: ArrayBuffer[]): ArrayBuffer[] {
  const away = structuredClone(buffers, { transfer: buffers });
  return structuredClone(away, { transfer: away });
}

function recordRow(id: string, json: string | Uint8Array): InteractionRow {
  return { interactionId: id, traceId: 't', agentId: 'a', conversationId: null, endTimeMs: 1, json };
}

describe('span bytes handed to the writer thread', () => {
  it('are copied into one buffer of their own, moved with the request, leaving the kept buffer whole', () => {
    const { kept, request } = heldRows();
    const moved = forTransfer(request, createBufferPool());
    expect(moved.buffers).toHaveLength(1);
    const rows = (moved.request as Extract<WriteRequest, { op: 'appendSpans' }>).rows;
    expect(rows.map((row) => [row.traceId, row.count, [...row.bytes]])).toEqual([
      ['a', 1, [0, 1, 2, 3]],
      ['b', 2, [4, 5, 6, 7, 8, 9]],
    ]);
    expect(rows.every((row) => row.bytes.buffer === moved.buffers[0])).toBe(true);
    // Moving the copy (as postMessage does) leaves what the collector keeps readable.
    structuredClone(moved.buffers[0], { transfer: moved.buffers });
    expect([...kept]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('include a single row that spans its whole buffer (a request of one trace), still copied', () => {
    const kept = Buffer.allocUnsafeSlow(3).fill(7);
    const moved = forTransfer(
      { op: 'appendSpans', rows: [{ traceId: 'a', count: 1, codec: 2, bytes: kept }] },
      createBufferPool(),
    );
    expect(moved.buffers[0]).not.toBe(kept.buffer);
    structuredClone(moved.buffers[0], { transfer: moved.buffers });
    expect([...kept]).toEqual([7, 7, 7]);
  });

  it('come back from the writer thread in the buffer they went in, which the next write uses again', () => {
    const pool = createBufferPool();
    const big = Buffer.alloc(MIN_POOLED_BYTES * 2, 1);
    const request: WriteRequest = { op: 'appendSpans', rows: [{ traceId: 'a', count: 1, codec: 2, bytes: big }] };
    const first = forTransfer(request, pool);
    // Moved to the writer and back (postMessage both ways), then taken back.
    const returned = thereAndBack(first.buffers);
    first.returned(returned);
    expect(pool.idleBytes).toBe(returned[0].byteLength);
    const second = forTransfer(request, pool);
    expect(pool.idleBytes).toBe(0);
    expect(second.buffers[0]).toBe(returned[0]);
    expect([...(second.request as Extract<WriteRequest, { op: 'appendSpans' }>).rows[0].bytes.subarray(0, 3)]).toEqual([
      1, 1, 1,
    ]);
  });

  it('leave other requests as they are, with nothing to move', () => {
    const request: WriteRequest = { op: 'releaseTraces', traceIds: ['a'] };
    const moved = forTransfer(request, createBufferPool());
    expect(moved.request).toBe(request);
    expect(moved.buffers).toEqual([]);
  });
});

describe("records' JSON handed to the writer thread", () => {
  it('moves in the buffers the collector owns, uncopied, and the rows view it again once it is back', () => {
    const first = new ArrayBuffer(8);
    const second = new ArrayBuffer(4);
    Buffer.from(first).write('{"a":1}{');
    Buffer.from(second).write('{"b"');
    markOwned(first);
    markOwned(second);
    const rows = [
      recordRow('x', new Uint8Array(first, 0, 7)),
      recordRow('y', new Uint8Array(second, 0, 4)),
      recordRow('z', new Uint8Array(first, 7, 1)),
    ];
    const moved = forTransfer({ op: 'putInteractions', rows }, createBufferPool());
    // Each buffer once, in the order the rows name them; the posted rows are the caller's.
    expect(moved.buffers).toEqual([first, second]);
    expect(moved.buffers[0]).toBe(first);
    expect((moved.request as Extract<WriteRequest, { op: 'putInteractions' }>).rows).toBe(rows);
    const returned = thereAndBack(moved.buffers);
    expect(first.detached).toBe(true);
    moved.returned(returned);
    const text = (row: InteractionRow) => Buffer.from(row.json as Uint8Array).toString();
    expect(rows.map(text)).toEqual(['{"a":1}', '{"b"', '{']);
    expect(rows[0].json).not.toBe(rows[2].json);
    expect((rows[0].json as Uint8Array).buffer).toBe(returned[0]);
    expect((rows[2].json as Uint8Array).buffer).toBe(returned[0]);
  });

  it('copies JSON in buffers it does not own (they may be shared), and posts text as it is', () => {
    const shared = Buffer.from('{"shared":true}');
    const rows = [recordRow('x', shared), recordRow('y', '{"text":true}')];
    const pool = createBufferPool();
    const moved = forTransfer({ op: 'putInteractions', rows }, pool);
    expect(moved.buffers).toHaveLength(1);
    expect(moved.buffers[0]).not.toBe(shared.buffer);
    const posted = (moved.request as Extract<WriteRequest, { op: 'putInteractions' }>).rows;
    expect(Buffer.from(posted[0].json as Uint8Array).toString()).toBe('{"shared":true}');
    expect(posted[1].json).toBe('{"text":true}');
    moved.returned(thereAndBack(moved.buffers));
    // The caller's rows never moved.
    expect(rows[0].json).toBe(shared);
    expect(shared.toString()).toBe('{"shared":true}');
  });

  it('posts records whose JSON is text without moving anything', () => {
    const rows = [recordRow('x', '{}')];
    const moved = forTransfer({ op: 'putInteractions', rows }, createBufferPool());
    expect(moved.buffers).toEqual([]);
    expect((moved.request as Extract<WriteRequest, { op: 'putInteractions' }>).rows).toBe(rows);
  });
});
