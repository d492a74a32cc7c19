import { describe, expect, it } from 'vitest';
import { copyTogether, createBufferPool, MIN_POOLED_BYTES } from '../../../collector/model/buffer-pool.ts';

describe('the buffer pool', () => {
  it('hands out buffers of the size asked for, and gives a returned one out again for the same size class', () => {
    const pool = createBufferPool();
    const first = pool.take(MIN_POOLED_BYTES * 3);
    expect(first.byteLength).toBe(MIN_POOLED_BYTES * 3);
    expect(first.byteOffset).toBe(0);
    const memory = first.buffer;
    pool.give(memory);
    expect(pool.idleBytes).toBe(memory.byteLength);
    // Anything up to the next power of two takes the same buffer.
    const second = pool.take(MIN_POOLED_BYTES * 4);
    expect(second.buffer).toBe(memory);
    expect(pool.idleBytes).toBe(0);
  });

  it('ignores a buffer given twice, or more buffers than it lent, so that no buffer is lent twice', () => {
    const pool = createBufferPool();
    const taken = pool.take(MIN_POOLED_BYTES);
    pool.give(taken.buffer);
    pool.give(taken.buffer);
    pool.give(new ArrayBuffer(MIN_POOLED_BYTES));
    expect(pool.idleBytes).toBe(MIN_POOLED_BYTES);
    expect(pool.take(MIN_POOLED_BYTES).buffer).toBe(taken.buffer);
    expect(pool.take(MIN_POOLED_BYTES).buffer).not.toBe(taken.buffer);
  });

  it('takes back a buffer that went to another thread and back (a new ArrayBuffer object)', () => {
    const pool = createBufferPool();
    const taken = pool.take(MIN_POOLED_BYTES * 2);
    taken.fill(9);
    const memory = taken.buffer as ArrayBuffer;
    const away = structuredClone(memory, { transfer: [memory] });
    const back = structuredClone(away, { transfer: [away] });
    pool.give(back);
    expect(pool.idleBytes).toBe(MIN_POOLED_BYTES * 2);
    const again = pool.take(MIN_POOLED_BYTES * 2);
    expect(again.buffer).toBe(back);
    expect(again[0]).toBe(9);
  });

  it('keeps at most its bound idle and frees what comes back beyond it', () => {
    const pool = createBufferPool(MIN_POOLED_BYTES * 2);
    const buffers = [pool.take(MIN_POOLED_BYTES), pool.take(MIN_POOLED_BYTES), pool.take(MIN_POOLED_BYTES)];
    for (const buffer of buffers) pool.give(buffer.buffer);
    expect(pool.idleBytes).toBe(MIN_POOLED_BYTES * 2);
    expect((buffers[2].buffer as ArrayBuffer).detached).toBe(true);
  });

  it('leaves small buffers to Node’s allocator', () => {
    const pool = createBufferPool();
    const small = pool.take(100);
    expect(small.byteLength).toBe(100);
    pool.give(small.buffer);
    expect(pool.idleBytes).toBe(0);
  });
});

describe('copying parts together', () => {
  it('puts them back to back in one pooled buffer and answers each part’s copy', () => {
    const pool = createBufferPool();
    const parts = [Buffer.from([1, 2]), Buffer.alloc(MIN_POOLED_BYTES, 3), Buffer.from([4])];
    const { bytes, copies } = copyTogether(pool, parts);
    expect(bytes.length).toBe(MIN_POOLED_BYTES + 3);
    expect(copies.map((copy) => copy.byteOffset)).toEqual([0, 2, MIN_POOLED_BYTES + 2]);
    expect(copies.every((copy) => copy.buffer === bytes.buffer)).toBe(true);
    expect([...copies[0], copies[1][0], ...copies[2]]).toEqual([1, 2, 3, 4]);
    pool.give(bytes.buffer);
    expect(pool.idleBytes).toBe(bytes.buffer.byteLength);
    expect(copyTogether(pool, []).bytes.buffer.byteLength).toBeGreaterThan(0);
  });
});
