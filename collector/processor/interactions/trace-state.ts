/**
 * The skeleton of one pending trace: enough of each span to decide which interaction it belongs
 * to and when that interaction is complete. The spans' content stays in the ledger store until
 * the interaction is built. A span is six 32-bit integers in the trace's range of its assembler's
 * span slab (span-slab.ts: no object and no id string per span, 24 bytes a span); spans refer to each
 * other by their index in the range.
 *
 * Span ids are 16 lowercase hex characters (collector/model/span.ts), kept as two 32-bit halves.
 */
import { hexId } from '../../model/span.ts';
import type { Invocation } from './classify.ts';
import { capacityFor, type SpanSlab } from './span-slab.ts';

/** The numbers of one span in the trace's range, in this order. */
export const ID_HIGH = 0;
export const ID_LOW = 1;
/** The parent's index; `NO_PARENT`; or a parent that has not arrived (`missingParent`). */
export const PARENT = 2;
/** When the collector received it: whole ms after the trace's `firstArrival`. */
export const ARRIVED = 3;
/** The decided interaction it belongs to (an index into `TraceState.interactions`), or `UNDECIDED`. */
export const OWNER = 4;
/** Its invocation (an index into `TraceState.invocations`), or `NOT_INVOCATION`. */
export const INVOCATION = 5;
export const SPAN_FIELDS = 6;

/** No parent, or a parent the span's flags mark as remote: like a root, the chain of parents ends there. */
export const NO_PARENT = -1;
export const UNDECIDED = -1;
export const NOT_INVOCATION = -1;
/** Beyond this many spans a trace keeps an index by span id instead of searching its array. */
const INDEX_FROM = 32;

export interface TraceState {
  traceId: string;
  /** Where the trace's pending spans are: `SPAN_FIELDS` numbers each, in arrival order. */
  slab: SpanSlab;
  /** Its range's offset in `slab.data` (meaningless while `capacity` is 0). */
  at: number;
  /** Spans its range has room for. */
  capacity: number;
  /** Pending spans. */
  count: number;
  /** The invocations among the spans, `INVOCATION` indexes them: one alone, or a list. */
  invocations: OneOrMore<Invocation>;
  /**
   * Parents that have not arrived, two numbers each (their id's halves; 0, 0 once it has arrived:
   * an id is never all zeros); `PARENT` refers to the k-th as `missingParent(k)`.
   */
  missing: number[] | undefined;
  /** Span id (`indexKey`) → index, once the trace has more than `INDEX_FROM` spans. */
  index: Map<number, number> | undefined;
  /** Interactions decided from this trace's pending spans; `OWNER` indexes it. */
  interactions: string[] | undefined;
  /** Members of interactions decided before the trace was last released (it came back). */
  decided: DecidedMembers | undefined;
  /** Times are ms after the assembler's epoch: small integers. */
  firstArrival: number;
  lastArrival: number;
  /**
   * Invocation spans (indices) that name a conversation and whose interaction is not decided yet:
   * the assembler counts them as that conversation's pending turns.
   */
  conversationSpans: OneOrMore<number>;
  /** When this trace is next due for a check, or undefined when not scheduled. */
  dueAt: number | undefined;
  /** The timer bucket holding this trace's next check. */
  dueBucket: number | undefined;
}

/**
 * None, one value alone, or a list of several: most traces have one invocation and one turn of a
 * conversation, and a list of one costs 56 bytes more than the value.
 */
export type OneOrMore<T> = T | T[] | undefined;

/** The `OneOrMore` with `value` added, and the value's index in it. */
export function addOne<T>(list: OneOrMore<T>, value: T): [OneOrMore<T>, number] {
  if (list === undefined) return [value, 0];
  if (!Array.isArray(list)) return [[list, value], 1];
  list.push(value);
  return [list, list.length - 1];
}

/** The `OneOrMore` without (the first) `value`. */
export function removeOne<T>(list: OneOrMore<T>, value: T): OneOrMore<T> {
  if (!Array.isArray(list)) return list === value ? undefined : list;
  const at = list.indexOf(value);
  if (at >= 0) list.splice(at, 1);
  return list.length === 0 ? undefined : list.length === 1 ? list[0] : list;
}

/** The values of a `OneOrMore`, as a list of their own. */
export function allOf<T>(list: OneOrMore<T>): T[] {
  return list === undefined ? [] : Array.isArray(list) ? [...list] : [list];
}

/** Whether a `OneOrMore` holds `value`. */
export function hasOne<T>(list: OneOrMore<T>, value: T): boolean {
  return Array.isArray(list) ? list.includes(value) : list === value;
}

export function newTrace(
  traceId: string,
  slab: SpanSlab,
  now: number,
  decided: DecidedMembers | undefined,
): TraceState {
  return {
    traceId,
    slab,
    at: 0,
    capacity: 0,
    count: 0,
    invocations: undefined,
    missing: undefined,
    index: undefined,
    interactions: undefined,
    decided,
    conversationSpans: undefined,
    firstArrival: now,
    lastArrival: now,
    dueAt: undefined,
    dueBucket: undefined,
  };
}

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

/** The `PARENT` value of the `k`-th missing parent. */
export const missingParent = (k: number): number => -2 - k;
/** Which missing parent a `PARENT` value below `NO_PARENT` refers to. */
export const missingIndex = (parent: number): number => -2 - parent;

/** The high or low 32 bits of a hex span id, as a signed integer. */
export function idHalf(id: string, from: 0 | 8): number {
  let value = 0;
  for (let i = from; i < from + 8; i++) {
    const c = id.charCodeAt(i);
    value = (value << 4) | (c <= 57 ? c - 48 : (c | 32) - 87);
  }
  return value | 0;
}

export function spanIdAt(trace: TraceState, index: number): string {
  const at = trace.at + index * SPAN_FIELDS;
  const data = trace.slab.data;
  return hexId(data[at + ID_HIGH], data[at + ID_LOW]);
}

/** Field `field` of pending span `index`. */
export function fieldOf(trace: TraceState, index: number, field: number): number {
  return trace.slab.data[trace.at + index * SPAN_FIELDS + field];
}

/** Sets field `field` of pending span `index`. */
export function setField(trace: TraceState, index: number, field: number, value: number): void {
  trace.slab.data[trace.at + index * SPAN_FIELDS + field] = value;
}

/** Lets go of the trace's range (it is no longer pending). */
export function freeSpans(trace: TraceState): void {
  if (trace.capacity > 0) trace.slab.free(trace.at, trace.capacity);
  trace.capacity = 0;
  trace.count = 0;
}

/** The invocation span `index` is, or undefined. */
export function invocationAt(trace: TraceState, index: number): Invocation | undefined {
  const invocation = fieldOf(trace, index, INVOCATION);
  if (invocation === NOT_INVOCATION) return undefined;
  const invocations = trace.invocations;
  return Array.isArray(invocations) ? invocations[invocation] : invocations;
}

export function spanCount(trace: TraceState): number {
  return trace.count;
}

/**
 * A span id's key in a trace's index: its 64 bits as a double, exact for all but the lowest bits of
 * the largest ids. Two ids may share a key; a lookup checks the span it finds.
 */
function indexKey(high: number, low: number): number {
  return high * 4294967296 + (low >>> 0);
}

/** The index of the pending span whose id has these halves, or -1. */
export function findSpan(trace: TraceState, high: number, low: number): number {
  const data = trace.slab.data;
  if (trace.index) {
    const found = trace.index.get(indexKey(high, low));
    if (found === undefined) return -1;
    const at = trace.at + found * SPAN_FIELDS;
    if (data[at + ID_LOW] === low && data[at + ID_HIGH] === high) return found;
    // Another id with the same key: searched for below.
  }
  for (let i = 0, at = trace.at; i < trace.count; i++, at += SPAN_FIELDS) {
    if (data[at + ID_LOW] === low && data[at + ID_HIGH] === high) return i;
  }
  return -1;
}

/** The interaction a span (by its id's halves) of an already decided interaction belongs to, or undefined. */
export function decidedOwner(trace: TraceState, high: number, low: number): string | undefined {
  const index = findSpan(trace, high, low);
  if (index >= 0) {
    const owner = fieldOf(trace, index, OWNER);
    return owner === UNDECIDED ? undefined : trace.interactions![owner];
  }
  const decided = trace.decided;
  if (!decided) return undefined;
  for (let at = 0; at < decided.spans.length; at += 3) {
    if (decided.spans[at + 1] === low && decided.spans[at] === high) {
      const root = decided.spans[at + 2] * 2;
      return `${trace.traceId}-${hexId(decided.roots[root], decided.roots[root + 1])}`;
    }
  }
  return undefined;
}

/** Keeps a late span (by its id's halves) as a member of the decided interaction it came for. */
export function addDecided(trace: TraceState, high: number, low: number, interactionId: string): void {
  trace.decided ??= { spans: [], roots: [] };
  const decided = trace.decided;
  const rootId = interactionId.slice(trace.traceId.length + 1);
  const [rootHigh, rootLow] = [idHalf(rootId, 0), idHalf(rootId, 8)];
  let owner = 0;
  while (
    owner * 2 < decided.roots.length &&
    (decided.roots[owner * 2] !== rootHigh || decided.roots[owner * 2 + 1] !== rootLow)
  )
    owner++;
  if (owner * 2 === decided.roots.length) decided.roots.push(rootHigh, rootLow);
  decided.spans.push(high, low, owner);
}

/**
 * `list` with `value` added at its end; a new list is a literal of one, as most of a trace's lists
 * stay (an array grown from empty by `push` reserves room for 17).
 */
export function appendTo<T>(list: T[] | undefined, value: T): T[] {
  if (!list) return [value];
  list.push(value);
  return list;
}

/**
 * Adds a pending span, by its id's halves; `parentHigh` and `parentLow` are its local parent's, when
 * `hasParent` (not for a root or a remote parent). Spans already here that were waiting for this
 * one as their parent now point at it.
 */
export function addSpan(
  trace: TraceState,
  high: number,
  low: number,
  hasParent: boolean,
  parentHigh: number,
  parentLow: number,
  arrived: number,
  invocation: Invocation | undefined,
): void {
  const index = spanCount(trace);
  let parent = NO_PARENT;
  if (hasParent) {
    parent = findSpan(trace, parentHigh, parentLow);
    if (parent < 0) {
      let k = missingAt(trace.missing, parentHigh, parentLow);
      if (k < 0) {
        trace.missing = appendTo(trace.missing, parentHigh);
        trace.missing.push(parentLow);
        k = trace.missing.length / 2 - 1;
      }
      parent = missingParent(k);
    }
  }
  let invocationIndex = NOT_INVOCATION;
  if (invocation) {
    [trace.invocations, invocationIndex] = addOne(trace.invocations, invocation);
  }
  if (index === trace.capacity) moveTo(trace, capacityFor(index + 1));
  const data = trace.slab.data;
  const at = trace.at + index * SPAN_FIELDS;
  data[at + ID_HIGH] = high;
  data[at + ID_LOW] = low;
  data[at + PARENT] = parent;
  data[at + ARRIVED] = Math.floor(arrived);
  data[at + OWNER] = UNDECIDED;
  data[at + INVOCATION] = invocationIndex;
  trace.count++;
  trace.index?.set(indexKey(high, low), index);
  if (!trace.index && index + 1 > INDEX_FROM) {
    trace.index = new Map();
    for (let i = 0; i <= index; i++)
      trace.index.set(indexKey(fieldOf(trace, i, ID_HIGH), fieldOf(trace, i, ID_LOW)), i);
  }
  const k = missingAt(trace.missing, high, low);
  if (k >= 0) {
    // Its children arrived first: they wait for it no longer. The slot stays (others refer by number).
    const waiting = missingParent(k);
    for (let i = 0; i < trace.count; i++) if (fieldOf(trace, i, PARENT) === waiting) setField(trace, i, PARENT, index);
    trace.missing![k * 2] = 0;
    trace.missing![k * 2 + 1] = 0;
    // Once every missing parent has arrived, nothing refers to the list any more.
    if (trace.missing!.every((half) => half === 0)) trace.missing = undefined;
  }
}

/**
 * Makes room for `more` spans beyond those pending, in one move: a request brings a trace's spans
 * together, and adding them one by one would move a trace of ten through six ranges (1, 2, 3, 4, 6,
 * 8, then 12 spans).
 */
export function reserveSpans(trace: TraceState, more: number): void {
  const needed = trace.count + more;
  if (needed > trace.capacity) moveTo(trace, capacityFor(needed));
}

/** Which missing parent (k) has the id with these halves, or -1. */
function missingAt(missing: number[] | undefined, high: number, low: number): number {
  if (!missing) return -1;
  for (let at = 0; at < missing.length; at += 2) if (missing[at] === high && missing[at + 1] === low) return at / 2;
  return -1;
}

/** Every decided member of the trace (pending spans decided, and those decided before), for the cache. */
export function decidedMembers(trace: TraceState): DecidedMembers | undefined {
  let owned = 0;
  for (let i = 0; i < trace.count; i++) if (fieldOf(trace, i, OWNER) !== UNDECIDED) owned++;
  if (owned === 0) return trace.decided;
  const before = trace.decided ?? { spans: [], roots: [] };
  // Sized once: arrays grown by push keep up to half again as much room, for as long as they live.
  const members: DecidedMembers = {
    spans: new Array<number>(before.spans.length + owned * 3),
    roots: new Array<number>(before.roots.length + trace.interactions!.length * 2),
  };
  let at = 0;
  for (; at < before.spans.length; at++) members.spans[at] = before.spans[at];
  for (let i = 0; i < before.roots.length; i++) members.roots[i] = before.roots[i];
  const base = before.roots.length / 2;
  trace.interactions!.forEach((interactionId, i) => {
    const rootId = interactionId.slice(trace.traceId.length + 1);
    members.roots[(base + i) * 2] = idHalf(rootId, 0);
    members.roots[(base + i) * 2 + 1] = idHalf(rootId, 8);
  });
  for (let span = 0; span < trace.count; span++) {
    const owner = fieldOf(trace, span, OWNER);
    if (owner === UNDECIDED) continue;
    members.spans[at++] = fieldOf(trace, span, ID_HIGH);
    members.spans[at++] = fieldOf(trace, span, ID_LOW);
    members.spans[at++] = base + owner;
  }
  return members;
}

/** Moves the trace's spans to a range with room for `capacity`. */
function moveTo(trace: TraceState, capacity: number): void {
  const slab = trace.slab;
  const at = slab.allocate(capacity);
  // `allocate` may have replaced the array: read it after.
  if (trace.count > 0) slab.data.copyWithin(at, trace.at, trace.at + trace.count * SPAN_FIELDS);
  if (trace.capacity > 0) slab.free(trace.at, trace.capacity);
  // `| 0`: computed as doubles, they would be kept as boxed numbers, 16 bytes each a pending trace.
  trace.at = at | 0;
  trace.capacity = capacity | 0;
}
