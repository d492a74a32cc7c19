/**
 * The decided traces the assembler remembers for late spans: what goes in comes out whole, the
 * oldest go first (by count and by age), and the shared array they live in is moved, grown and
 * shrunk as entries come and go without losing any.
 */
import { describe, expect, it } from 'vitest';
import { createDecidedCache } from '../../../../collector/processor/interactions/decided-cache.ts';
import { hexIdInto, ID_INTS } from '../../../../collector/processor/interactions/decided-table.ts';
import type { DecidedMembers } from '../../../../collector/processor/interactions/trace-state.ts';

/** Members of `roots` interactions with `spans` spans each, numbered from `seed` (signed halves included). */
function members(seed: number, roots = 1, spans = 10): DecidedMembers {
  const decided: DecidedMembers = { spans: [], roots: [] };
  for (let r = 0; r < roots; r++) {
    decided.roots.push(-seed - r, seed * 7 + r);
    for (let s = 0; s < spans; s++) decided.spans.push(seed + s, -(seed * 3 + s), r);
  }
  return decided;
}

describe('the decided cache', () => {
  it('tells a trace id of 32 hex characters by its integers, and no other form', () => {
    const out = new Int32Array(ID_INTS);
    expect(hexIdInto('0123456789abcdef00000000ffffffff', out)).toBe(true);
    expect([...out]).toEqual([0x01234567, 0x89abcdef - 2 ** 32, 0, -1]);
    for (const other of [
      '0123456789ABCDEF00000000ffffffff',
      '0123456789abcdef',
      'g'.repeat(32),
      `${'0'.repeat(32)}0`,
    ]) {
      expect(hexIdInto(other, out)).toBe(false);
    }
  });

  it('keeps apart hex ids that differ in any one of their integers', () => {
    const cache = createDecidedCache();
    const ids = ['0'.repeat(32), `1${'0'.repeat(31)}`, `${'0'.repeat(8)}1${'0'.repeat(23)}`, `${'0'.repeat(31)}1`];
    for (const [i, traceId] of ids.entries()) cache.set(traceId, members(i + 1), i);
    expect(ids.map((traceId) => cache.take(traceId))).toEqual(ids.map((_, i) => members(i + 1)));
    expect(cache.size).toBe(0);
  });

  it('gives back what it was given, once, and forgets a trace deleted or given again', () => {
    const cache = createDecidedCache();
    cache.set('a', members(1, 2, 3), 10);
    cache.set('b', members(2), 11);
    expect(cache.size).toBe(2);
    expect(cache.take('a')).toEqual(members(1, 2, 3));
    expect(cache.take('a')).toBeUndefined();
    cache.set('b', members(3), 12); // decided again: the newer members
    cache.delete('c');
    expect(cache.take('b')).toEqual(members(3));
    expect(cache.size).toBe(0);
  });

  it('forgets the oldest beyond its limit, and those decided at or before a time', () => {
    const cache = createDecidedCache();
    for (let i = 0; i < 10; i++) cache.set(`t${i}`, members(i), 1000 + i);
    cache.forget(-Infinity, 7);
    expect(cache.size).toBe(7);
    expect(cache.take('t2')).toBeUndefined();
    expect(cache.take('t3')).toEqual(members(3));
    cache.forget(1005, 100);
    expect([4, 5, 6, 7, 8, 9].map((i) => cache.take(`t${i}`) !== undefined)).toEqual([
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
  });

  it('keeps times exactly, fractions and days of milliseconds alike', () => {
    const cache = createDecidedCache();
    cache.set('late', members(1), 40 * 86_400_000 + 0.5);
    cache.forget(40 * 86_400_000, 10);
    expect(cache.size).toBe(1);
    cache.forget(40 * 86_400_000 + 0.5, 10);
    expect(cache.size).toBe(0);
  });

  // Trace ids as the receivers make them (32 hex characters, kept in the array as integers, found
  // through the table), ids of any other form (kept in a map), and both at once.
  const idForms: Array<[string, (i: number) => string]> = [
    ['other ids', (i) => `t${i}`],
    ['hex ids', (i) => (i * 2_654_435_761).toString(16).padStart(32, '0')],
    ['both', (i) => (i % 2 === 0 ? `t${i}` : i.toString(16).padStart(32, 'f'))],
  ];

  it.each(idForms)('loses nothing and forgets the oldest under a stream, its array moving (%s)', (_, idOf) => {
    const cache = createDecidedCache();
    const expected = new Map<string, DecidedMembers>();
    let now = 0;
    for (let i = 0; i < 20_000; i++) {
      const traceId = idOf(i);
      const decided = members(i, 1 + (i % 3), 1 + (i % 40));
      cache.set(traceId, decided, now++);
      expected.set(traceId, decided);
      // Some come back before they are forgotten; the rest go by count.
      if (i % 11 === 0) {
        const back = idOf(i - 5);
        expect(cache.take(back)).toEqual(expected.get(back));
        expected.delete(back);
      }
      // Some are decided again: they become the newest, their older entry stale.
      if (i % 13 === 0 && expected.has(idOf(i - 7))) {
        const again = idOf(i - 7);
        const redecided = members(i + 100_000, 2, 3);
        cache.set(again, redecided, now++);
        expected.delete(again);
        expected.set(again, redecided);
      }
      cache.forget(-Infinity, 3000);
      while (expected.size > 3000) expected.delete(expected.keys().next().value!);
    }
    expect(cache.size).toBe(expected.size);
    for (const [traceId, decided] of [...expected].slice(-50)) expect(cache.take(traceId)).toEqual(decided);
    // The oldest kept are exactly those expected (by order of last decision).
    for (const [traceId, decided] of [...expected].slice(0, 50)) expect(cache.take(traceId)).toEqual(decided);
    // Emptied by age, then filled again from the start.
    cache.forget(now, 3000);
    expect(cache.size).toBe(0);
    cache.set('again', members(5), now);
    expect(cache.take('again')).toEqual(members(5));
  });
});
