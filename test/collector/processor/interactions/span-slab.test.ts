/**
 * The span slab pending traces keep their spans in: ranges come in size classes, are used again once
 * let go, keep their numbers when the array grows, and are moved whole when a burst is over and the
 * array is compacted (its memory given back).
 */
import { describe, expect, it } from 'vitest';
import { capacityFor, createSpanSlab, type SlabRange } from '../../../../collector/processor/interactions/span-slab.ts';

const FIELDS = 6;

/** A range holding `count` spans whose numbers are `seed`, `seed + 1`, ... */
function filled(slab: ReturnType<typeof createSpanSlab>, count: number, seed: number): SlabRange {
  const capacity = capacityFor(count);
  const at = slab.allocate(capacity);
  for (let i = 0; i < count * FIELDS; i++) slab.data[at + i] = seed + i;
  return { at, capacity, count };
}

function numbers(slab: ReturnType<typeof createSpanSlab>, range: SlabRange): number[] {
  return Array.from(slab.data.subarray(range.at, range.at + range.count * FIELDS));
}

const expected = (count: number, seed: number) => Array.from({ length: count * FIELDS }, (_, i) => seed + i);

describe('the span slab', () => {
  it('sizes ranges in classes less than half again as large as asked for', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 17, 25, 33, 49, 100].map(capacityFor)).toEqual([
      1, 2, 3, 4, 6, 6, 8, 8, 12, 12, 16, 24, 32, 48, 64, 128,
    ]);
    for (let spans = 1; spans <= 5000; spans++) {
      const capacity = capacityFor(spans);
      expect(capacity).toBeGreaterThanOrEqual(spans);
      expect(capacity).toBeLessThanOrEqual(Math.max(4, Math.ceil(spans * 1.5)));
    }
  });

  it('uses a range let go again for the next one of its class, and starts afresh once all are gone', () => {
    const slab = createSpanSlab(FIELDS);
    const a = filled(slab, 10, 0);
    const b = filled(slab, 10, 1000);
    filled(slab, 3, 2000);
    expect(slab.used).toBe((12 + 12 + 3) * FIELDS);
    slab.free(b.at, b.capacity);
    const c = filled(slab, 9, 3000);
    expect(c.at).toBe(b.at);
    expect(numbers(slab, a)).toEqual(expected(10, 0));
    expect(numbers(slab, c)).toEqual(expected(9, 3000));
  });

  it('keeps every range whole as the array grows, and compacts them into a smaller one after a burst', () => {
    const slab = createSpanSlab(FIELDS);
    const live: SlabRange[] = [];
    for (let i = 0; i < 20_000; i++) live.push(filled(slab, 1 + (i % 13), i * 100));
    const grown = slab.data.length;
    expect(grown).toBeGreaterThan(64 * 1024);
    for (const [i, range] of live.entries()) expect(numbers(slab, range)).toEqual(expected(range.count, i * 100));

    // The burst is over: all but every 50th trace are decided.
    const kept = live.filter((_, i) => i % 50 === 0);
    for (const [i, range] of live.entries()) if (i % 50 !== 0) slab.free(range.at, range.capacity);
    expect(slab.wasteful()).toBe(true);
    slab.compact(kept);
    expect(slab.data.length).toBeLessThan(grown);
    expect(slab.wasteful()).toBe(false);
    for (const range of kept) expect(numbers(slab, range)).toEqual(expected(range.count, live.indexOf(range) * 100));
    // New ranges after the compaction do not overlap the moved ones.
    const fresh = filled(slab, 7, -5);
    for (const range of kept) expect(numbers(slab, range)).toEqual(expected(range.count, live.indexOf(range) * 100));
    expect(numbers(slab, fresh)).toEqual(expected(7, -5));
  });
});
