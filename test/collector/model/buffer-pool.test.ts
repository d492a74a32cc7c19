import { describe, expect, it } from 'vitest';
import {
  copyTogether,
  createBufferPool,
  MIN_POOLED_BYTES,
  sizeClass,
  THREAD_POOL_IDLE_BYTES,
  threadBufferPool,
} from '../../../collector/model/buffer-pool.ts';

describe('the buffer pool', () => {
  it('hands out buffers of the size asked for, and gives a returned one out again for the same size class', () => {
    const pool = createBufferPool();
    const first = pool.take(MIN_POOLED_BYTES * 3);
    expect(first.byteLength).toBe(MIN_POOLED_BYTES * 3);
    expect(first.byteOffset).toBe(0);
    const memory = first.buffer;
    expect(memory.byteLength).toBe(MIN_POOLED_BYTES * 3); // 1.5 times a power of two: a class of its own
    pool.give(memory);
    expect(pool.idleBytes).toBe(memory.byteLength);
    // A smaller size of the same class takes the same buffer, as does one of the class below.
    const second = pool.take(MIN_POOLED_BYTES * 3 - 1000);
    expect(second.buffer).toBe(memory);
    expect(pool.idleBytes).toBe(0);
    pool.give(second.buffer);
    expect(pool.take(MIN_POOLED_BYTES * 2.5).buffer).toBe(memory);
    pool.give(memory);
    // Two classes below: a buffer of its own, not one half again as large.
    const smaller = pool.take(MIN_POOLED_BYTES * 2);
    expect(smaller.buffer).not.toBe(memory);
    expect(smaller.buffer.byteLength).toBe(MIN_POOLED_BYTES * 2);
  });

  it('rounds a size up by at most a quarter (a 1.37 MiB request takes 1.5 MiB, not 2)', () => {
    for (let size = MIN_POOLED_BYTES; size < 64 * 1024 * 1024; size = Math.ceil(size * 1.07)) {
      const capacity = sizeClass(size);
      expect(capacity).toBeGreaterThanOrEqual(size);
      expect(capacity).toBeLessThanOrEqual(size * 1.25);
      expect(sizeClass(capacity)).toBe(capacity);
    }
    expect(sizeClass(1_436_000)).toBe(1.5 * 1024 * 1024);
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

  it('is one pool for every user on a thread, whose idle bytes are bounded once', () => {
    const pool = threadBufferPool();
    expect(threadBufferPool()).toBe(pool);
    // What one use gives back (a request body) serves another (a transfer of the same size class).
    const body = pool.take(1_436_000);
    pool.give(body.buffer);
    expect(threadBufferPool().take(1_400_000).buffer).toBe(body.buffer);
    // A burst gives back more than the bound: the rest is freed, not kept.
    const burst = Array.from({ length: 40 }, () => pool.take(1024 * 1024));
    for (const buffer of burst) pool.give(buffer.buffer);
    expect(pool.idleBytes).toBe(THREAD_POOL_IDLE_BYTES);
    expect(burst.filter((buffer) => buffer.buffer.byteLength === 0)).toHaveLength(40 - 32);
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
