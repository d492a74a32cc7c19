import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBody, releaseBody } from '../../../../collector/receiver/otlp/read-body.ts';
import { createBufferPool } from '../../../../collector/model/buffer-pool.ts';

/** A request stream that sends `chunks` and ends, as Node's IncomingMessage does. */
function requestOf(chunks: Buffer[]): IncomingMessage {
  const stream = new PassThrough();
  Object.assign(stream, { complete: true });
  queueMicrotask(() => {
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
  });
  return stream as unknown as IncomingMessage;
}

const options = { encoding: 'identity' as const, maxBytes: 1 << 20, onHeld: () => true };

describe('request bodies', () => {
  it('a body put together from chunks is freed at once when released', async () => {
    const body = await readBody(requestOf([Buffer.alloc(50_000, 1), Buffer.alloc(50_000, 2)]), options);
    expect(body.length).toBe(100_000);
    expect(body[0]).toBe(1);
    expect(body[99_999]).toBe(2);
    releaseBody(body);
    expect((body.buffer as ArrayBuffer).detached).toBe(true);
    releaseBody(body); // twice is harmless
  });

  it('a body of one chunk (whose buffer others may share) is left to the garbage collector', async () => {
    const shared = Buffer.alloc(100, 7);
    const body = await readBody(requestOf([shared.subarray(0, 50)]), options);
    releaseBody(body);
    expect([...shared.subarray(0, 3)]).toEqual([7, 7, 7]);
    expect((shared.buffer as ArrayBuffer).detached).toBe(false);
  });

  it('a small body put together in a slice of a shared pool is left to the garbage collector', async () => {
    const body = await readBody(requestOf([Buffer.alloc(500, 1), Buffer.alloc(500, 2)]), options);
    releaseBody(body);
    expect(body.length).toBe(1000);
    expect(body[999]).toBe(2);
  });

  it('a buffer readBody did not return is never freed', () => {
    const other = Buffer.allocUnsafeSlow(10_000).fill(3);
    releaseBody(other);
    expect(other[0]).toBe(3);
  });

  it('a body put together in a buffer of the pool goes back to it when released, for the next body', async () => {
    const pool = createBufferPool();
    const first = await readBody(requestOf([Buffer.alloc(50_000, 1), Buffer.alloc(50_000, 2)]), { ...options, pool });
    expect(first[99_999]).toBe(2);
    const memory = first.buffer;
    releaseBody(first, pool);
    expect(pool.idleBytes).toBe(memory.byteLength);
    // A larger body of the same size class (buffer-pool.ts) fills the same buffer.
    const second = await readBody(requestOf([Buffer.alloc(55_000, 3), Buffer.alloc(55_000, 4)]), { ...options, pool });
    expect(second.buffer).toBe(memory);
    expect(second.length).toBe(110_000);
    expect([second[0], second[109_999]]).toEqual([3, 4]);
    releaseBody(second, pool);
    releaseBody(second, pool); // twice is harmless
    expect(pool.idleBytes).toBe(memory.byteLength);
  });
});
