/**
 * A pending trace's spans in its range of the span slab: a request's spans of one trace are given
 * room once (`reserveSpans`) instead of moving the trace through a range of every size class, and
 * the spans and their links to parents are the same either way.
 */
import { describe, expect, it } from 'vitest';
import { createSpanSlab } from '../../../../collector/processor/interactions/span-slab.ts';
import {
  ID_LOW,
  NO_PARENT,
  PARENT,
  SPAN_FIELDS,
  addSpan,
  fieldOf,
  findSpan,
  newTrace,
  reserveSpans,
  type TraceState,
} from '../../../../collector/processor/interactions/trace-state.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

/** Adds a root (span 1) and `count - 1` children of the span before each; answers the ranges it used. */
function addChain(trace: TraceState, count: number): number[] {
  const ranges = new Set<number>();
  for (let span = 1; span <= count; span++) {
    addSpan(trace, 7, span, span > 1, 7, span - 1, 0, undefined);
    ranges.add(trace.at);
  }
  return [...ranges];
}

describe('a pending trace in the span slab', () => {
  it('takes a request of ten spans into one range when room for them is reserved first', () => {
    const slab = createSpanSlab(SPAN_FIELDS);
    const trace = newTrace(TRACE_ID, slab, 0, undefined);
    reserveSpans(trace, 10);
    expect(trace.capacity).toBe(12);
    expect(addChain(trace, 10)).toHaveLength(1);
    expect(slab.used).toBe(12 * SPAN_FIELDS);
  });

  it('moves through the size classes when its spans are added one by one', () => {
    const slab = createSpanSlab(SPAN_FIELDS);
    const trace = newTrace(TRACE_ID, slab, 0, undefined);
    // 1, 2, 3, 4, 6, 8 and 12 spans: seven ranges, the last one kept.
    expect(addChain(trace, 10).length).toBeGreaterThan(1);
    expect(trace.capacity).toBe(12);
    expect(slab.used).toBe(12 * SPAN_FIELDS);
  });

  it('holds the same spans and parents whether room was reserved or not', () => {
    const reserved = newTrace(TRACE_ID, createSpanSlab(SPAN_FIELDS), 0, undefined);
    reserveSpans(reserved, 10);
    addChain(reserved, 10);
    const grown = newTrace(TRACE_ID, createSpanSlab(SPAN_FIELDS), 0, undefined);
    addChain(grown, 10);
    for (const trace of [reserved, grown]) {
      expect(trace.count).toBe(10);
      expect(fieldOf(trace, 0, PARENT)).toBe(NO_PARENT);
      for (let i = 1; i < 10; i++) {
        expect(fieldOf(trace, i, ID_LOW)).toBe(i + 1);
        expect(fieldOf(trace, i, PARENT)).toBe(i - 1);
      }
      expect(findSpan(trace, 7, 10)).toBe(9);
    }
  });

  it('keeps what is pending when a later request reserves more, and reserves nothing when there is room', () => {
    const trace = newTrace(TRACE_ID, createSpanSlab(SPAN_FIELDS), 0, undefined);
    reserveSpans(trace, 3);
    addChain(trace, 3);
    const at = trace.at;
    reserveSpans(trace, 0);
    expect(trace.at).toBe(at);
    reserveSpans(trace, 5);
    expect(trace.capacity).toBe(8);
    expect([0, 1, 2].map((i) => fieldOf(trace, i, ID_LOW))).toEqual([1, 2, 3]);
    expect(fieldOf(trace, 2, PARENT)).toBe(1);
  });
});
