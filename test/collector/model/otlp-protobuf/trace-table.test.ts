/**
 * The receiver's table of a request's traces: one string per trace, found again by the id's bytes
 * wherever its spans are in the body.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTraceTable } from '../../../../collector/model/otlp-protobuf/trace-table.ts';

/** A body holding these ids one after another (16 bytes each), and where each one starts. */
function bodyOf(ids: Buffer[]): { body: Buffer; starts: number[] } {
  return { body: Buffer.concat(ids), starts: ids.map((_, i) => i * 16) };
}

describe('the trace table of a received request', () => {
  it('numbers traces in order of first appearance and gives every span of one the same string', () => {
    const [a, b, c] = [randomBytes(16), randomBytes(16), randomBytes(16)];
    const { body, starts } = bodyOf([a, a, b, a, c, b, c, a]);
    const table = createTraceTable();
    const indexes = starts.map((start) => table.indexOf(body, start));
    expect(indexes).toEqual([0, 0, 1, 0, 2, 1, 2, 0]);
    expect(table.ids).toEqual([a.toString('hex'), b.toString('hex'), c.toString('hex')]);
    expect(table.last).toBe(0);
  });

  it('keeps thousands of traces apart, also when their ids differ only in the bytes a sender numbers', () => {
    const random = Array.from({ length: 3_000 }, () => randomBytes(16));
    // As the benchmark's sender writes them: the same last 12 bytes, a counter in the first 4.
    const tail = randomBytes(12);
    const numbered = Array.from({ length: 500 }, (_, i) => {
      const id = Buffer.alloc(16);
      id.writeUInt32BE(i + 1);
      tail.copy(id, 4);
      return id;
    });
    const ids = [...random, ...numbered];
    const { body, starts } = bodyOf([...ids, ...ids.toReversed()]);
    const table = createTraceTable();
    const indexes = starts.map((start) => table.indexOf(body, start));
    expect(indexes.slice(0, ids.length)).toEqual(ids.map((_, i) => i));
    expect(indexes.slice(ids.length)).toEqual(ids.map((_, i) => ids.length - 1 - i));
    expect(table.ids).toEqual(ids.map((id) => id.toString('hex')));
  });
});
