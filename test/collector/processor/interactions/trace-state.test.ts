/**
 * Pending traces as slots (pending-traces.ts) and their spans in the span slab (trace-state.ts): a
 * request's spans of one trace are given room once (`reserveSpans`) instead of moving the trace
 * through a range of every size class, the spans and their links to parents are the same either
 * way, and a slot let go — its range with it — serves the next trace.
 */
import { describe, expect, it } from 'vitest';
import {
  closeTrace,
  createPendingTraces,
  openTrace,
  type PendingTraces,
} from '../../../../collector/processor/interactions/pending-traces.ts';
import { createSpanSlab } from '../../../../collector/processor/interactions/span-slab.ts';
import {
  ID_LOW,
  NO_PARENT,
  PARENT,
  SPAN_FIELDS,
  addSpan,
  decidedOwner,
  fieldOf,
  findSpan,
  reserveSpans,
} from '../../../../collector/processor/interactions/trace-state.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

function oneTrace(): { traces: PendingTraces; trace: number } {
  const traces = createPendingTraces(createSpanSlab(SPAN_FIELDS));
  return { traces, trace: openTrace(traces, TRACE_ID, 0, undefined) };
}

/** Adds a root (span 1) and `count - 1` children of the span before each; answers the ranges it used. */
function addChain(traces: PendingTraces, trace: number, count: number): number[] {
  const ranges = new Set<number>();
  for (let span = 1; span <= count; span++) {
    addSpan(traces, trace, 7, span, span > 1, 7, span - 1, 0, undefined);
    ranges.add(traces.at[trace]);
  }
  return [...ranges];
}

describe('a pending trace in the span slab', () => {
  it('takes a request of ten spans into one range when room for them is reserved first', () => {
    const { traces, trace } = oneTrace();
    reserveSpans(traces, trace, 10);
    expect(traces.capacity[trace]).toBe(12);
    expect(addChain(traces, trace, 10)).toHaveLength(1);
    expect(traces.slab.used).toBe(12 * SPAN_FIELDS);
  });

  it('moves through the size classes when its spans are added one by one', () => {
    const { traces, trace } = oneTrace();
    // 1, 2, 3, 4, 6, 8 and 12 spans: seven ranges, the last one kept.
    expect(addChain(traces, trace, 10).length).toBeGreaterThan(1);
    expect(traces.capacity[trace]).toBe(12);
    expect(traces.slab.used).toBe(12 * SPAN_FIELDS);
  });

  it('holds the same spans and parents whether room was reserved or not', () => {
    const reserved = oneTrace();
    reserveSpans(reserved.traces, reserved.trace, 10);
    addChain(reserved.traces, reserved.trace, 10);
    const grown = oneTrace();
    addChain(grown.traces, grown.trace, 10);
    for (const { traces, trace } of [reserved, grown]) {
      expect(traces.count[trace]).toBe(10);
      expect(fieldOf(traces, trace, 0, PARENT)).toBe(NO_PARENT);
      for (let i = 1; i < 10; i++) {
        expect(fieldOf(traces, trace, i, ID_LOW)).toBe(i + 1);
        expect(fieldOf(traces, trace, i, PARENT)).toBe(i - 1);
      }
      expect(findSpan(traces, trace, 7, 10)).toBe(9);
    }
  });

  it('keeps what is pending when a later request reserves more, and reserves nothing when there is room', () => {
    const { traces, trace } = oneTrace();
    reserveSpans(traces, trace, 3);
    addChain(traces, trace, 3);
    const at = traces.at[trace];
    reserveSpans(traces, trace, 0);
    expect(traces.at[trace]).toBe(at);
    reserveSpans(traces, trace, 5);
    expect(traces.capacity[trace]).toBe(8);
    expect([0, 1, 2].map((i) => fieldOf(traces, trace, i, ID_LOW))).toEqual([1, 2, 3]);
    expect(fieldOf(traces, trace, 2, PARENT)).toBe(1);
  });

  it('links children that came first to their parent once it arrives', () => {
    const { traces, trace } = oneTrace();
    addSpan(traces, trace, 7, 3, true, 7, 2, 0, undefined);
    addSpan(traces, trace, 7, 2, true, 7, 1, 0, undefined);
    expect(fieldOf(traces, trace, 0, PARENT)).toBe(1);
    // Span 2's slot in the list stays, zeroed: others refer to missing parents by their place.
    expect(traces.rare[trace]?.missing).toEqual([0, 0, 7, 1]);
    addSpan(traces, trace, 7, 1, false, 0, 0, 0, undefined);
    expect(fieldOf(traces, trace, 1, PARENT)).toBe(2);
    // Nothing else was rare about it: the trace keeps no object of its own.
    expect(traces.rare[trace]).toBeUndefined();
  });
});

describe('pending traces as slots', () => {
  it('lets go of a trace and its range, and serves the next trace from its slot afresh', () => {
    const { traces, trace } = oneTrace();
    reserveSpans(traces, trace, 10);
    addChain(traces, trace, 10);
    closeTrace(traces, trace);
    expect(traces.slab.used).toBe(0);
    const next = openTrace(traces, 'ffffffffffffffffffffffffffffffff', 5, { spans: [7, 4, 0], roots: [7, 1] });
    expect(next).toBe(trace);
    expect(traces.count[next]).toBe(0);
    expect(traces.firstArrival[next]).toBe(5);
    expect(Number.isNaN(traces.dueAt[next])).toBe(true);
    expect(findSpan(traces, next, 7, 4)).toBe(-1);
    // What the trace came back with: the members of an interaction decided before.
    expect(decidedOwner(traces, next, 7, 4)).toBe('ffffffffffffffffffffffffffffffff-0000000700000001');
  });

  it('grows past its first thousand slots with every trace its own numbers', () => {
    const traces = createPendingTraces(createSpanSlab(SPAN_FIELDS));
    const slots: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const slot = openTrace(traces, i.toString(16).padStart(32, '0'), i, undefined);
      addSpan(traces, slot, 1, i + 1, false, 0, 0, 0, undefined);
      slots.push(slot);
    }
    expect(new Set(slots).size).toBe(3000);
    slots.forEach((slot, i) => {
      expect(traces.traceIds[slot]).toBe(i.toString(16).padStart(32, '0'));
      expect(traces.firstArrival[slot]).toBe(i);
      expect(fieldOf(traces, slot, 0, ID_LOW)).toBe(i + 1);
    });
  });
});
