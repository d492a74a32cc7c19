/**
 * The skeleton of one pending trace: enough of each span to decide which interaction it belongs
 * to and when that interaction is complete. The spans' content stays in the ledger store until
 * the interaction is built. A trace is a slot of its assembler's pending traces (pending-traces.ts:
 * no object per trace); a span is six 32-bit integers in the trace's range of the span slab
 * (span-slab.ts: no object and no id string per span, 24 bytes a span); spans refer to each other
 * by their index in the range. Every function here takes the pending traces and the trace's slot.
 *
 * Span ids are 16 lowercase hex characters (collector/model/span.ts), kept as two 32-bit halves.
 */
import { hexId } from '../../model/span.ts';
import type { Invocation } from './classify.ts';
import { rareOf, type DecidedMembers, type OneOrMore, type PendingTraces } from './pending-traces.ts';

export type { DecidedMembers, OneOrMore } from './pending-traces.ts';
import { capacityFor } from './span-slab.ts';

/** The numbers of one span in the trace's range, in this order. */
export const ID_HIGH = 0;
export const ID_LOW = 1;
/** The parent's index; `NO_PARENT`; or a parent that has not arrived (`missingParent`). */
export const PARENT = 2;
/** When the collector received it: whole ms after the trace's `firstArrival`. */
export const ARRIVED = 3;
/** The decided interaction it belongs to (an index into the trace's `interactions`), or `UNDECIDED`. */
export const OWNER = 4;
/** Its invocation (an index into the trace's `invocations`), or `NOT_INVOCATION`. */
export const INVOCATION = 5;
export const SPAN_FIELDS = 6;

/** No parent, or a parent the span's flags mark as remote: like a root, the chain of parents ends there. */
export const NO_PARENT = -1;
export const UNDECIDED = -1;
export const NOT_INVOCATION = -1;
/** Beyond this many spans a trace keeps an index by span id instead of searching its array. */
const INDEX_FROM = 32;

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

export function spanIdAt(traces: PendingTraces, trace: number, index: number): string {
  const at = traces.at[trace] + index * SPAN_FIELDS;
  const data = traces.slab.data;
  return hexId(data[at + ID_HIGH], data[at + ID_LOW]);
}

/** Field `field` of pending span `index`. */
export function fieldOf(traces: PendingTraces, trace: number, index: number, field: number): number {
  return traces.slab.data[traces.at[trace] + index * SPAN_FIELDS + field];
}

/** Sets field `field` of pending span `index`. */
export function setField(traces: PendingTraces, trace: number, index: number, field: number, value: number): void {
  traces.slab.data[traces.at[trace] + index * SPAN_FIELDS + field] = value;
}

/** The invocation span `index` is, or undefined. */
export function invocationAt(traces: PendingTraces, trace: number, index: number): Invocation | undefined {
  const invocation = fieldOf(traces, trace, index, INVOCATION);
  if (invocation === NOT_INVOCATION) return undefined;
  const invocations = traces.invocations[trace];
  return Array.isArray(invocations) ? invocations[invocation] : invocations;
}

export function spanCount(traces: PendingTraces, trace: number): number {
  return traces.count[trace];
}

/**
 * A span id's key in a trace's index: its 64 bits as a double, exact for all but the lowest bits of
 * the largest ids. Two ids may share a key; a lookup checks the span it finds.
 */
function indexKey(high: number, low: number): number {
  return high * 4294967296 + (low >>> 0);
}

/** The index of the pending span whose id has these halves, or -1. */
export function findSpan(traces: PendingTraces, trace: number, high: number, low: number): number {
  const data = traces.slab.data;
  const base = traces.at[trace];
  const index = traces.rare[trace]?.index;
  if (index) {
    const found = index.get(indexKey(high, low));
    if (found === undefined) return -1;
    const at = base + found * SPAN_FIELDS;
    if (data[at + ID_LOW] === low && data[at + ID_HIGH] === high) return found;
    // Another id with the same key: searched for below.
  }
  for (let i = 0, at = base, count = traces.count[trace]; i < count; i++, at += SPAN_FIELDS) {
    if (data[at + ID_LOW] === low && data[at + ID_HIGH] === high) return i;
  }
  return -1;
}

/** The interaction a span (by its id's halves) of an already decided interaction belongs to, or undefined. */
export function decidedOwner(traces: PendingTraces, trace: number, high: number, low: number): string | undefined {
  const index = findSpan(traces, trace, high, low);
  if (index >= 0) {
    const owner = fieldOf(traces, trace, index, OWNER);
    return owner === UNDECIDED ? undefined : traces.rare[trace]!.interactions![owner];
  }
  const decided = traces.rare[trace]?.decided;
  if (!decided) return undefined;
  for (let at = 0; at < decided.spans.length; at += 3) {
    if (decided.spans[at + 1] === low && decided.spans[at] === high) {
      const root = decided.spans[at + 2] * 2;
      return `${traces.traceIds[trace]}-${hexId(decided.roots[root], decided.roots[root + 1])}`;
    }
  }
  return undefined;
}

/** Whether members of interactions decided before the trace came back are kept for it. */
export function hasDecided(traces: PendingTraces, trace: number): boolean {
  return traces.rare[trace]?.decided !== undefined;
}

/** Keeps a late span (by its id's halves) as a member of the decided interaction it came for. */
export function addDecided(
  traces: PendingTraces,
  trace: number,
  high: number,
  low: number,
  interactionId: string,
): void {
  const rare = rareOf(traces, trace);
  rare.decided ??= { spans: [], roots: [] };
  const decided = rare.decided;
  const rootId = interactionId.slice(traces.traceIds[trace].length + 1);
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

/** Notes an interaction decided from the trace's pending spans; answers its index (for `OWNER`). */
export function addInteraction(traces: PendingTraces, trace: number, interactionId: string): number {
  const rare = rareOf(traces, trace);
  rare.interactions ??= [];
  return rare.interactions.push(interactionId) - 1;
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
  traces: PendingTraces,
  trace: number,
  high: number,
  low: number,
  hasParent: boolean,
  parentHigh: number,
  parentLow: number,
  arrived: number,
  invocation: Invocation | undefined,
): void {
  const index = traces.count[trace];
  let parent = NO_PARENT;
  if (hasParent) {
    parent = findSpan(traces, trace, parentHigh, parentLow);
    if (parent < 0) {
      const rare = rareOf(traces, trace);
      let k = missingAt(rare.missing, parentHigh, parentLow);
      if (k < 0) {
        rare.missing = appendTo(rare.missing, parentHigh);
        rare.missing.push(parentLow);
        k = rare.missing.length / 2 - 1;
      }
      parent = missingParent(k);
    }
  }
  let invocationIndex = NOT_INVOCATION;
  if (invocation) {
    const invocations = traces.invocations[trace];
    if (invocations === undefined) {
      traces.invocations[trace] = invocation;
      invocationIndex = 0;
    } else {
      [traces.invocations[trace], invocationIndex] = addOne(invocations, invocation);
    }
  }
  if (index === traces.capacity[trace]) moveTo(traces, trace, capacityFor(index + 1));
  const data = traces.slab.data;
  const at = traces.at[trace] + index * SPAN_FIELDS;
  data[at + ID_HIGH] = high;
  data[at + ID_LOW] = low;
  data[at + PARENT] = parent;
  data[at + ARRIVED] = Math.floor(arrived);
  data[at + OWNER] = UNDECIDED;
  data[at + INVOCATION] = invocationIndex;
  traces.count[trace] = index + 1;
  const rare = traces.rare[trace];
  rare?.index?.set(indexKey(high, low), index);
  if (!rare?.index && index + 1 > INDEX_FROM) {
    const byId = new Map<number, number>();
    for (let i = 0; i <= index; i++)
      byId.set(indexKey(fieldOf(traces, trace, i, ID_HIGH), fieldOf(traces, trace, i, ID_LOW)), i);
    rareOf(traces, trace).index = byId;
  }
  const missing = traces.rare[trace]?.missing;
  const k = missingAt(missing, high, low);
  if (k >= 0) {
    // Its children arrived first: they wait for it no longer. The slot stays (others refer by number).
    const waiting = missingParent(k);
    for (let i = 0; i <= index; i++)
      if (fieldOf(traces, trace, i, PARENT) === waiting) setField(traces, trace, i, PARENT, index);
    missing![k * 2] = 0;
    missing![k * 2 + 1] = 0;
    // Once every missing parent has arrived, nothing refers to the list any more (nor, most often,
    // to the rare state: the children of most traces end, and are sent, before their parents).
    if (missing!.every((half) => half === 0)) {
      const rare = traces.rare[trace]!;
      rare.missing = undefined;
      if (!rare.index && !rare.interactions && !rare.decided) traces.rare[trace] = undefined;
    }
  }
}

/**
 * Makes room for `more` spans beyond those pending, in one move: a request brings a trace's spans
 * together, and adding them one by one would move a trace of ten through six ranges (1, 2, 3, 4, 6,
 * 8, then 12 spans).
 */
export function reserveSpans(traces: PendingTraces, trace: number, more: number): void {
  const needed = traces.count[trace] + more;
  if (needed > traces.capacity[trace]) moveTo(traces, trace, capacityFor(needed));
}

/** Which missing parent (k) has the id with these halves, or -1. */
function missingAt(missing: number[] | undefined, high: number, low: number): number {
  if (!missing) return -1;
  for (let at = 0; at < missing.length; at += 2) if (missing[at] === high && missing[at + 1] === low) return at / 2;
  return -1;
}

/** Every decided member of the trace (pending spans decided, and those decided before), for the cache. */
export function decidedMembers(traces: PendingTraces, trace: number): DecidedMembers | undefined {
  const count = traces.count[trace];
  let owned = 0;
  for (let i = 0; i < count; i++) if (fieldOf(traces, trace, i, OWNER) !== UNDECIDED) owned++;
  const rare = traces.rare[trace];
  if (owned === 0) return rare?.decided;
  const interactions = rare!.interactions!;
  const before = rare!.decided ?? { spans: [], roots: [] };
  // Sized once: arrays grown by push keep up to half again as much room, for as long as they live.
  const members: DecidedMembers = {
    spans: new Array<number>(before.spans.length + owned * 3),
    roots: new Array<number>(before.roots.length + interactions.length * 2),
  };
  let at = 0;
  for (; at < before.spans.length; at++) members.spans[at] = before.spans[at];
  for (let i = 0; i < before.roots.length; i++) members.roots[i] = before.roots[i];
  const base = before.roots.length / 2;
  const idLength = traces.traceIds[trace].length;
  interactions.forEach((interactionId, i) => {
    const rootId = interactionId.slice(idLength + 1);
    members.roots[(base + i) * 2] = idHalf(rootId, 0);
    members.roots[(base + i) * 2 + 1] = idHalf(rootId, 8);
  });
  for (let span = 0; span < count; span++) {
    const owner = fieldOf(traces, trace, span, OWNER);
    if (owner === UNDECIDED) continue;
    members.spans[at++] = fieldOf(traces, trace, span, ID_HIGH);
    members.spans[at++] = fieldOf(traces, trace, span, ID_LOW);
    members.spans[at++] = base + owner;
  }
  return members;
}

/** Moves the trace's spans to a range with room for `capacity`. */
function moveTo(traces: PendingTraces, trace: number, capacity: number): void {
  const slab = traces.slab;
  const at = slab.allocate(capacity);
  // `allocate` may have replaced the array: read it after.
  const from = traces.at[trace];
  const count = traces.count[trace];
  if (count > 0) slab.data.copyWithin(at, from, from + count * SPAN_FIELDS);
  if (traces.capacity[trace] > 0) slab.free(from, traces.capacity[trace]);
  traces.at[trace] = at;
  traces.capacity[trace] = capacity;
}
