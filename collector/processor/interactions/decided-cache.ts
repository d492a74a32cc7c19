/**
 * The decided traces the assembler remembers, so that a span arriving after its interaction was
 * decided is recognised as late (docs/interactions.md, "Late, duplicate, unassigned and evicted
 * spans"): as many traces as `max_pending_traces`, each for `decision_wait` at most. Under sustained
 * load that is always the full count, so an entry is kept small: its numbers in one growing array of
 * 32-bit integers shared by all entries, in the order they were decided, and a map from trace id to
 * where its entry starts (the map's own order is the order of decision, so the oldest entry is its
 * first). An entry of a 10-span trace takes ~150 bytes of that array, against ~450 bytes as objects
 * and arrays of its own (docs/benchmarks.md).
 *
 * Entry layout, from its start: the time of the decision (a double's 64 bits as two integers), the
 * number of interaction roots R, the number of member spans S, then R pairs of root span id halves,
 * then S triples (span id high half, low half, index of its interaction among the roots).
 */
import type { DecidedMembers } from './trace-state.ts';

export interface DecidedCache {
  /** Remembers a decided trace's members, decided at `at` (what was remembered of it before goes). */
  set(traceId: string, members: DecidedMembers, at: number): void;
  /** The members remembered of a trace, which are forgotten here (its spans are pending again). */
  take(traceId: string): DecidedMembers | undefined;
  /** Forgets a trace. */
  delete(traceId: string): void;
  /** Forgets traces decided at `notAfter` or before, then the oldest beyond `limit` traces. */
  forget(notAfter: number, limit: number): void;
  readonly size: number;
}

const AT_HIGH = 0;
const AT_LOW = 1;
const ROOTS = 2;
const SPANS = 3;
const HEADER = 4;
/** How a time (any double) becomes two integers and back, exactly. */
const timeBits = new DataView(new ArrayBuffer(8));
const INITIAL_CAPACITY = 4096;

export function createDecidedCache(): DecidedCache {
  /** Trace id → where its entry starts (a logical position: the array's index is it minus `base`). */
  const where = new Map<string, number>();
  let ring = new Int32Array(INITIAL_CAPACITY);
  /** The logical position of `ring[0]`. */
  let base = 0;
  /** Where the next entry goes (logical). */
  let tail = 0;

  const atOf = (start: number) => {
    timeBits.setInt32(0, ring[start - base + AT_HIGH]);
    timeBits.setInt32(4, ring[start - base + AT_LOW]);
    return timeBits.getFloat64(0);
  };

  /**
   * Room for `length` more integers after `tail`: the live entries (from the map's first, the
   * oldest) moved to the front, into a larger array when they fill more than half of this one, or a
   * smaller one when they fill less than an eighth of it.
   */
  function reserve(length: number): void {
    if (tail - base + length <= ring.length) return;
    const first = where.values().next();
    const head = first.done ? tail : first.value;
    const needed = tail - head + length;
    if (needed * 2 <= ring.length && (needed * 8 > ring.length || ring.length === INITIAL_CAPACITY)) {
      ring.copyWithin(0, head - base, tail - base);
    } else {
      const next = new Int32Array(Math.max(INITIAL_CAPACITY, 2 ** Math.ceil(Math.log2(needed * 2))));
      next.set(ring.subarray(head - base, tail - base));
      ring = next;
    }
    base = head;
  }

  function members(start: number): DecidedMembers {
    const at = start - base;
    const roots = ring[at + ROOTS];
    const spans = ring[at + SPANS];
    const rootsFrom = at + HEADER;
    const spansFrom = rootsFrom + roots * 2;
    return {
      roots: Array.from(ring.subarray(rootsFrom, spansFrom)),
      spans: Array.from(ring.subarray(spansFrom, spansFrom + spans * 3)),
    };
  }

  return {
    get size() {
      return where.size;
    },

    set(traceId, decided, at) {
      where.delete(traceId);
      const length = HEADER + decided.roots.length + decided.spans.length;
      reserve(length);
      const start = tail - base;
      timeBits.setFloat64(0, at);
      ring[start + AT_HIGH] = timeBits.getInt32(0);
      ring[start + AT_LOW] = timeBits.getInt32(4);
      ring[start + ROOTS] = decided.roots.length / 2;
      ring[start + SPANS] = decided.spans.length / 3;
      ring.set(decided.roots, start + HEADER);
      ring.set(decided.spans, start + HEADER + decided.roots.length);
      where.set(traceId, tail);
      tail += length;
    },

    take(traceId) {
      const start = where.get(traceId);
      if (start === undefined) return undefined;
      where.delete(traceId);
      return members(start);
    },

    delete(traceId) {
      where.delete(traceId);
    },

    forget(notAfter, limit) {
      for (const [traceId, start] of where) {
        if (where.size <= limit && atOf(start) > notAfter) break;
        where.delete(traceId);
      }
      if (where.size === 0) base = tail = 0;
    },
  };
}
