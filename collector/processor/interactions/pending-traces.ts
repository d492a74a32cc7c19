/**
 * The pending traces of one assembler, without an object per trace: a trace is a slot, its numbers
 * are in typed arrays, and the few values that are objects (its id, its invocations, what only some
 * traces have) in arrays indexed by slot. Its spans are in its range of the span slab
 * (span-slab.ts; what a span holds is in trace-state.ts).
 *
 * An object per trace cost ~150 bytes of heap, its entry in the timer's set of trace ids ~20 more,
 * and every one of them was visited by each full garbage collection (docs/benchmarks.md, "Ingest");
 * a slot costs 32 bytes of heap (four references) and 44 bytes of typed arrays. The arrays keep
 * their length once grown (a slot let go serves the next trace): after a burst of 100,000 traces,
 * ~8 MiB until the assembler is dropped.
 */
import type { Invocation } from './classify.ts';
import type { SlabRange, SpanSlab } from './span-slab.ts';

/**
 * None, one value alone, or a list of several: most traces have one invocation and one turn of a
 * conversation, and a list of one costs 56 bytes more than the value.
 */
export type OneOrMore<T> = T | T[] | undefined;

/**
 * The spans of a trace's decided interactions, kept to recognise late spans: three numbers a span
 * and two an interaction, no string.
 */
export interface DecidedMembers {
  /** Per span: id high half, id low half, index of its interaction in `roots`. */
  spans: number[];
  /** Per interaction: its root span's id halves (the interaction id is `<trace id>-<root span id>`). */
  roots: number[];
}

/** What only some pending traces have, in an object of its own made when first needed. */
export interface RareState {
  /**
   * Parents that have not arrived, two numbers each (their id's halves; 0, 0 once it has arrived:
   * an id is never all zeros); a span's `PARENT` refers to the k-th as `missingParent(k)`.
   */
  missing?: number[];
  /** Span id (`indexKey`) → index, once the trace has more than `INDEX_FROM` spans. */
  index?: Map<number, number>;
  /** Interactions decided from the trace's pending spans; a span's `OWNER` indexes it. */
  interactions?: string[];
  /** Members of interactions decided before the trace was last released (it came back). */
  decided?: DecidedMembers;
}

export interface PendingTraces {
  /** Where every pending trace's spans are: `SPAN_FIELDS` numbers each, in arrival order. */
  readonly slab: SpanSlab;
  /** Per slot: its range's offset in `slab.data` (meaningless while `capacity` is 0). */
  at: Int32Array;
  /** Spans its range has room for. */
  capacity: Int32Array;
  /** Pending spans. */
  count: Int32Array;
  /** Times are ms after the assembler's epoch. */
  firstArrival: Float64Array;
  lastArrival: Float64Array;
  /** When the trace is next due for a check; NaN when it is not scheduled. */
  dueAt: Float64Array;
  /** The timer bucket holding its next check; NaN when none. */
  dueBucket: Float64Array;
  traceIds: string[];
  /** The invocations among its spans (a span's `INVOCATION` indexes them): one alone, or a list. */
  invocations: Array<OneOrMore<Invocation>>;
  /**
   * Invocation spans (indices) that name a conversation and whose interaction is not decided yet:
   * the assembler counts them as that conversation's pending turns.
   */
  conversationSpans: Array<OneOrMore<number>>;
  rare: Array<RareState | undefined>;
}

interface Slots extends PendingTraces {
  /** Slots let go, served again first. */
  free: number[];
  /** Slots handed out so far (the typed arrays' used length). */
  used: number;
}

const MIN_SLOTS = 1024;

export function createPendingTraces(slab: SpanSlab): PendingTraces {
  const slots: Slots = {
    slab,
    at: new Int32Array(MIN_SLOTS),
    capacity: new Int32Array(MIN_SLOTS),
    count: new Int32Array(MIN_SLOTS),
    firstArrival: new Float64Array(MIN_SLOTS),
    lastArrival: new Float64Array(MIN_SLOTS),
    dueAt: new Float64Array(MIN_SLOTS),
    dueBucket: new Float64Array(MIN_SLOTS),
    traceIds: [],
    invocations: [],
    conversationSpans: [],
    rare: [],
    free: [],
    used: 0,
  };
  return slots;
}

function grown<T extends Int32Array | Float64Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** A slot for a trace that starts pending now, with no spans yet. */
export function openTrace(
  traces: PendingTraces,
  traceId: string,
  now: number,
  decided: DecidedMembers | undefined,
): number {
  const slots = traces as Slots;
  let slot = slots.free.pop();
  if (slot === undefined) {
    slot = slots.used++;
    if (slot === slots.at.length) {
      slots.at = grown(slots.at);
      slots.capacity = grown(slots.capacity);
      slots.count = grown(slots.count);
      slots.firstArrival = grown(slots.firstArrival);
      slots.lastArrival = grown(slots.lastArrival);
      slots.dueAt = grown(slots.dueAt);
      slots.dueBucket = grown(slots.dueBucket);
    }
  }
  slots.at[slot] = 0;
  slots.capacity[slot] = 0;
  slots.count[slot] = 0;
  slots.firstArrival[slot] = now;
  slots.lastArrival[slot] = now;
  slots.dueAt[slot] = Number.NaN;
  slots.dueBucket[slot] = Number.NaN;
  slots.traceIds[slot] = traceId;
  slots.invocations[slot] = undefined;
  slots.conversationSpans[slot] = undefined;
  slots.rare[slot] = decided ? { decided } : undefined;
  return slot;
}

/** Lets go of a trace's slot and of its spans' range (it is no longer pending). */
export function closeTrace(traces: PendingTraces, slot: number): void {
  const slots = traces as Slots;
  if (slots.capacity[slot] > 0) slots.slab.free(slots.at[slot], slots.capacity[slot]);
  slots.capacity[slot] = 0;
  slots.count[slot] = 0;
  slots.dueAt[slot] = Number.NaN;
  slots.dueBucket[slot] = Number.NaN;
  slots.traceIds[slot] = '';
  slots.invocations[slot] = undefined;
  slots.conversationSpans[slot] = undefined;
  slots.rare[slot] = undefined;
  slots.free.push(slot);
}

/** The trace's rare state, made when first asked for. */
export function rareOf(traces: PendingTraces, slot: number): RareState {
  let rare = traces.rare[slot];
  if (!rare) {
    rare = {};
    traces.rare[slot] = rare;
  }
  return rare;
}

/** Moves the spans of the traces in `slots` (every pending one) into a smaller array of the slab. */
export function compactSpans(traces: PendingTraces, slots: Iterable<number>): void {
  const ranges: Array<SlabRange & { slot: number }> = [];
  for (const slot of slots) {
    ranges.push({ slot, at: traces.at[slot], capacity: traces.capacity[slot], count: traces.count[slot] });
  }
  traces.slab.compact(ranges);
  for (const range of ranges) {
    traces.at[range.slot] = range.at;
    traces.capacity[range.slot] = range.capacity;
  }
}
