/**
 * The decided traces the assembler remembers, so that a span arriving after its interaction was
 * decided is recognised as late (docs/interactions.md, "Late, duplicate, unassigned and evicted
 * spans"): as many traces as `max_pending_traces`, each for `decision_wait` at most. Under sustained
 * load that is always the full count, so an entry is kept small: its numbers in one growing array of
 * 32-bit integers shared by all entries, in the order they were decided, a map from trace id to
 * where its entry starts, and a queue of (trace id, start) in the order of decision, from which the
 * oldest are forgotten (walking the map from its first entry instead stepped over every entry
 * deleted since the map last compacted itself, on every call). An entry of a 10-span trace takes
 * ~150 bytes of that array, against ~450 bytes as objects
 * and arrays of its own (docs/benchmarks.md).
 *
 * Entry layout, from its start: the time of the decision (a double's 64 bits as two integers), the
 * number of interaction roots R, the number of member spans S, then R pairs of root span id halves,
 * then S triples (span id high half, low half, index of its interaction among the roots).
 */
import { freeBuffer } from '../../model/free-buffer.ts';
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
  /**
   * Entries in the order they were set, from `head` on: trace id and start. One whose trace was set
   * again, taken or deleted since is stale (the map no longer points at that start) and skipped.
   */
  let order: string[] = [];
  let orderStarts: number[] = [];
  let head = 0;

  /** Moves `head` past stale entries: then `order[head]` is the oldest live one, if any. */
  function skipStale(): void {
    while (head < order.length && where.get(order[head]) !== orderStarts[head]) head++;
    if (head === order.length) {
      order = [];
      orderStarts = [];
      head = 0;
    } else if (head > 1024 && head * 2 > order.length) {
      order = order.slice(head);
      orderStarts = orderStarts.slice(head);
      head = 0;
    }
  }

  const atOf = (start: number) => {
    timeBits.setInt32(0, ring[start - base + AT_HIGH]);
    timeBits.setInt32(4, ring[start - base + AT_LOW]);
    return timeBits.getFloat64(0);
  };

  /**
   * Room for `length` more integers after `tail`: the live entries (from the oldest) moved to the
   * front, into a new array 1.75 times their size when they fill more than two thirds of this one
   * (each move then buys room for at least a third of it) or less than an eighth of it.
   */
  function reserve(length: number): void {
    if (tail - base + length <= ring.length) return;
    skipStale();
    const oldest = head < order.length ? orderStarts[head] : tail;
    const needed = tail - oldest + length;
    if (needed * 3 <= ring.length * 2 && (needed * 8 > ring.length || ring.length === INITIAL_CAPACITY)) {
      ring.copyWithin(0, oldest - base, tail - base);
    } else {
      const next = new Int32Array(Math.max(INITIAL_CAPACITY, Math.ceil((needed * 1.75) / 4096) * 4096));
      next.set(ring.subarray(oldest - base, tail - base));
      freeBuffer(ring.buffer);
      ring = next;
    }
    base = oldest;
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
      order.push(traceId);
      orderStarts.push(tail);
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
      for (skipStale(); head < order.length; head++, skipStale()) {
        if (where.size <= limit && atOf(orderStarts[head]) > notAfter) break;
        where.delete(order[head]);
      }
      if (where.size === 0) base = tail = 0;
    },
  };
}
