/**
 * The decided traces the assembler remembers, so that a span arriving after its interaction was
 * decided is recognised as late (docs/interactions.md, "Late, duplicate, unassigned and evicted
 * spans"): as many traces as `max_pending_traces`, each for `decision_wait` at most. Under sustained
 * load that is always the full count, so nothing of an entry is kept on the heap:
 *
 * - its numbers go in one growing array of 32-bit integers shared by all entries, in the order they
 *   were decided (the oldest first, so forgetting walks it from the front);
 * - a trace id of 32 lowercase hex characters (every id the receivers make) is kept there too, as
 *   four integers, and found through an open-addressing table of typed arrays
 *   (decided-table.ts); any other id (tests, hand-made spans) through a map of its own.
 *
 * A map from id strings to entries and a queue of ids held ~200 bytes of heap an entry under a
 * stream of decisions, which V8's growth allowance doubled (docs/benchmarks.md).
 *
 * Entry layout, from its start: the time of the decision (a double's 64 bits as two integers), the
 * number of interaction roots R, the number of member spans S, whether the id is in the entry
 * (`HEX_ID`) or in the map (`OTHER_ID`), the id's four integers (zeros for `OTHER_ID`), then R pairs
 * of root span id halves, then S triples (span id high half, low half, index of its interaction
 * among the roots).
 */
import { freeBuffer } from '../../model/free-buffer.ts';
import { createDecidedTable, hexIdInto, ID_INTS } from './decided-table.ts';
import type { DecidedMembers } from './trace-state.ts';

export interface DecidedCache {
  /** Remembers a decided trace's members, decided at `at` (what was remembered of it before goes). */
  set(traceId: string, members: DecidedMembers, at: number): void;
  /** The members remembered of a trace, which are forgotten here (its spans are pending again). */
  take(traceId: string): DecidedMembers | undefined;
  /** Whether a trace's members are remembered. */
  has(traceId: string): boolean;
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
const ID_KIND = 4;
const ID = 5;
const HEADER = ID + ID_INTS;
const HEX_ID = 1;
const OTHER_ID = 2;
/** How a time (any double) becomes two integers and back, exactly. */
const timeBits = new DataView(new ArrayBuffer(8));
const INITIAL_CAPACITY = 4096;
/** A new array holds the live entries and this much more (each move then buys room for a fifth). */
const GROWTH = 1.25;

export function createDecidedCache(): DecidedCache {
  const table = createDecidedTable();
  /** Ids that are not 32 hex characters → where their entry starts; and back, while the entry is in the array. */
  const otherStarts = new Map<string, number>();
  const otherIds = new Map<number, string>();
  let ring = new Int32Array(INITIAL_CAPACITY);
  /** Logical positions: the array's index is one minus `base`. */
  let base = 0;
  /** Where the oldest entry still in the array starts. */
  let oldest = 0;
  /** Where the next entry goes. */
  let tail = 0;
  const id = new Int32Array(ID_INTS);
  /** Entries that are their trace's live one. */
  const live = () => table.size + otherStarts.size;

  const lengthAt = (at: number) => HEADER + ring[at + ROOTS] * 2 + ring[at + SPANS] * 3;

  const timeAt = (at: number) => {
    timeBits.setInt32(0, ring[at + AT_HIGH]);
    timeBits.setInt32(4, ring[at + AT_LOW]);
    return timeBits.getFloat64(0);
  };

  /** Where the live entry of `traceId` starts (logical), or -1. Leaves a hex id's integers in `id`. */
  function find(traceId: string): number {
    if (hexIdInto(traceId, id)) return table.get(id);
    return otherStarts.get(traceId) ?? -1;
  }

  /** Forgets the live entry of `traceId` (found by `find` just before), if any. */
  function remove(traceId: string, start: number): void {
    if (start < 0) return;
    if (ring[start - base + ID_KIND] === HEX_ID) table.delete(id);
    else otherStarts.delete(traceId);
  }

  /** Whether the entry at `start` (logical) is its trace's live one. */
  function isLive(start: number): boolean {
    const at = start - base;
    if (ring[at + ID_KIND] === HEX_ID) {
      id.set(ring.subarray(at + ID, at + HEADER));
      return table.get(id) === start;
    }
    const traceId = otherIds.get(start);
    return traceId !== undefined && otherStarts.get(traceId) === start;
  }

  /** Moves `oldest` past the entry at it, which leaves the array (forgotten first when live). */
  function dropOldest(forget: boolean): void {
    const at = oldest - base;
    if (forget) {
      if (ring[at + ID_KIND] === HEX_ID) table.delete(ring.subarray(at + ID, at + HEADER));
      else otherStarts.delete(otherIds.get(oldest)!);
    }
    if (ring[at + ID_KIND] === OTHER_ID) otherIds.delete(oldest);
    oldest += lengthAt(at);
  }

  /**
   * Room for `length` more integers after `tail`: the entries from the oldest moved to the front,
   * into a new array `GROWTH` times their size when they fill more than four fifths of this one or
   * less than an eighth of it.
   */
  function reserve(length: number): void {
    if (tail - base + length <= ring.length) return;
    while (oldest < tail && !isLive(oldest)) dropOldest(false);
    const needed = tail - oldest + length;
    if (needed * 5 <= ring.length * 4 && (needed * 8 > ring.length || ring.length === INITIAL_CAPACITY)) {
      ring.copyWithin(0, oldest - base, tail - base);
    } else {
      const next = new Int32Array(Math.max(INITIAL_CAPACITY, Math.ceil((needed * GROWTH) / 4096) * 4096));
      next.set(ring.subarray(oldest - base, tail - base));
      freeBuffer(ring.buffer);
      ring = next;
    }
    base = oldest;
  }

  function members(start: number): DecidedMembers {
    const at = start - base;
    const rootsFrom = at + HEADER;
    const spansFrom = rootsFrom + ring[at + ROOTS] * 2;
    return {
      roots: Array.from(ring.subarray(rootsFrom, spansFrom)),
      spans: Array.from(ring.subarray(spansFrom, spansFrom + ring[at + SPANS] * 3)),
    };
  }

  return {
    get size() {
      return live();
    },

    set(traceId, decided, decidedAt) {
      remove(traceId, find(traceId));
      const length = HEADER + decided.roots.length + decided.spans.length;
      reserve(length);
      // `reserve` may have used `id` for entries it looked at: the trace's own again.
      const hex = hexIdInto(traceId, id);
      if (!hex) id.fill(0);
      const at = tail - base;
      timeBits.setFloat64(0, decidedAt);
      ring[at + AT_HIGH] = timeBits.getInt32(0);
      ring[at + AT_LOW] = timeBits.getInt32(4);
      ring[at + ROOTS] = decided.roots.length / 2;
      ring[at + SPANS] = decided.spans.length / 3;
      ring[at + ID_KIND] = hex ? HEX_ID : OTHER_ID;
      ring.set(id, at + ID);
      ring.set(decided.roots, at + HEADER);
      ring.set(decided.spans, at + HEADER + decided.roots.length);
      if (hex) table.set(id, tail);
      else {
        otherStarts.set(traceId, tail);
        otherIds.set(tail, traceId);
      }
      tail += length;
    },

    take(traceId) {
      const start = find(traceId);
      if (start < 0) return undefined;
      const found = members(start);
      remove(traceId, start);
      return found;
    },

    has: (traceId) => find(traceId) >= 0,

    delete(traceId) {
      remove(traceId, find(traceId));
    },

    forget(notAfter, limit) {
      while (oldest < tail) {
        if (!isLive(oldest)) dropOldest(false);
        else if (live() > limit || timeAt(oldest - base) <= notAfter) dropOldest(true);
        else break;
      }
      // Nothing left (every entry walked past): start again from the front.
      if (oldest === tail) base = oldest = tail = 0;
    },
  };
}
