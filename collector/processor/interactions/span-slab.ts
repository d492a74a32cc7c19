/**
 * The pending spans of every trace one assembler holds, in one Int32Array: each trace owns a range
 * of it (`at`, room for `capacity` spans of `SPAN_FIELDS` numbers, trace-state.ts). An array of its
 * own per trace cost ~530 bytes for ten spans (eight bytes a number, and the array's headers), and
 * one more object for the garbage collector to visit; here the same spans take 240-290 bytes and no
 * object (docs/benchmarks.md, "Ingest").
 *
 * Ranges come in size classes (1, 2, 3, 4, 6, 8, 12, 16, 24, ... spans: less than half again as
 * many as asked for); a range let go goes to its class's free list and serves the next trace of that class.
 * The array doubles when it is full. When what is used falls below a quarter of it (after a burst),
 * `compact` moves the live ranges into a new array half full, so that the memory of a burst is given
 * back; a replaced array's memory is freed at once (not at the next full collection). Whoever
 * reads `data` reads it again after `allocate` or `compact`: both may replace it.
 */
import { freeBuffer } from '../../model/free-buffer.ts';

/** What a trace's range is: where, how much room, how many spans are in it. */
export interface SlabRange {
  at: number;
  capacity: number;
  count: number;
}

export interface SpanSlab {
  /** Every range's numbers. Replaced by `allocate` (growing) and `compact`. */
  data: Int32Array;
  /** A range with room for `capacity` spans (a size class: `capacityFor`); its offset in `data`. */
  allocate(capacity: number): number;
  /** Lets go of a range `allocate` gave. */
  free(at: number, capacity: number): void;
  /** Whether `compact` would give memory back now. */
  wasteful(): boolean;
  /** Moves every live range (`ranges`: all of them) into a new array, each sized to its spans. */
  compact(ranges: Iterable<SlabRange>): void;
  /** Numbers in live ranges. */
  readonly used: number;
}

/** The smallest array a slab keeps (64 Ki numbers: 256 KiB). */
const MIN_LENGTH = 64 * 1024;

/** The size class holding `spans` spans: 1, 2, 3, 4, then 6, 8, 12, 16, 24, 32, ... */
export function capacityFor(spans: number): number {
  if (spans <= 4) return Math.max(1, spans);
  let power = 4;
  for (;;) {
    if (spans <= power * 1.5) return power * 1.5;
    power *= 2;
    if (spans <= power) return power;
  }
}

export function createSpanSlab(fields: number): SpanSlab {
  let data = new Int32Array(MIN_LENGTH);
  /** The end of the ranges handed out. */
  let top = 0;
  let used = 0;
  /** Free ranges by capacity. */
  let free = new Map<number, number[]>();

  function grow(length: number): void {
    let size = data.length * 2;
    while (size < length) size *= 2;
    const bigger = new Int32Array(size);
    bigger.set(data.subarray(0, top));
    // The old array's memory goes now, not at the next full collection.
    freeBuffer(data.buffer);
    data = bigger;
    slab.data = data;
  }

  const slab: SpanSlab = {
    data,
    allocate(capacity) {
      const size = capacity * fields;
      used += size;
      const reuse = free.get(capacity)?.pop();
      if (reuse !== undefined) return reuse;
      const at = top;
      top += size;
      if (top > data.length) grow(top);
      return at;
    },
    free(at, capacity) {
      const size = capacity * fields;
      used -= size;
      if (used === 0) {
        // Nothing is live: the array starts afresh from its beginning.
        top = 0;
        free = new Map();
        return;
      }
      if (at + size === top) {
        top = at;
        return;
      }
      let list = free.get(capacity);
      if (!list) {
        list = [];
        free.set(capacity, list);
      }
      list.push(at);
    },
    wasteful: () => data.length > MIN_LENGTH && used * 4 < data.length,
    compact(ranges) {
      let length = MIN_LENGTH;
      while (length < used * 2) length *= 2;
      const next = new Int32Array(length);
      let end = 0;
      for (const range of ranges) {
        const capacity = capacityFor(range.count);
        next.set(data.subarray(range.at, range.at + range.count * fields), end);
        range.at = end;
        range.capacity = capacity;
        end += capacity * fields;
        if (end > next.length) throw new Error('span slab: the ranges given hold more than the slab counts as used');
      }
      freeBuffer(data.buffer);
      data = next;
      slab.data = next;
      top = end;
      used = end;
      free = new Map();
    },
    get used() {
      return used;
    },
  };
  return slab;
}
