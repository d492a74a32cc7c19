/**
 * Received spans' heads reduced to what the assembler keeps of them: per span six 32-bit integers
 * (its id's halves, its parent's, what kind of parent, its invocation) and its trace. The processor
 * prepares a request's spans before it waits for them to be stored, so that their head objects
 * (ids as strings, names, attributes) are garbage while the request waits instead of surviving
 * young-generation collections into the old generation; it adds them once they are stored.
 */
import { SPAN_FLAGS_IS_REMOTE, type SpanHead } from '../../model/span.ts';
import type { Invocation } from './classify.ts';
import { idHalf } from './trace-state.ts';

/** The numbers of one span, in this order. */
export const TRACE = 0;
export const SPAN_HIGH = 1;
export const SPAN_LOW = 2;
export const PARENT_HIGH = 3;
export const PARENT_LOW = 4;
/** `PARENT_NONE`, `PARENT_LOCAL` or `PARENT_REMOTE` in the low two bits; its invocation + 1 above them. */
const KIND = 5;
export const PREPARED_FIELDS = 6;

export const PARENT_NONE = 0;
export const PARENT_LOCAL = 1;
/** A parent in another process (the span's flags say so): like a root, its chain of parents ends there. */
export const PARENT_REMOTE = 2;

export interface PreparedSpans {
  readonly count: number;
  /** The spans' traces, in order of first appearance; `TRACE` indexes them. */
  readonly traceIds: string[];
  /** `PREPARED_FIELDS` numbers a span, in the order received. */
  readonly numbers: Int32Array;
  /** The invocations among the spans; a span's `KIND` refers to one. */
  readonly invocations: Invocation[];
}

/** Distinct (dialect, agent identity) pairs whose Invocation objects are shared; beyond, each is its own. */
const MAX_SHARED_INVOCATIONS = 4096;

/**
 * `classify`, answering one Invocation object per (dialect, agent identity, conversation): the
 * traces of an agent share it.
 */
export function sharingInvocations(
  classify: (span: SpanHead) => Invocation | undefined,
): (span: SpanHead) => Invocation | undefined {
  const invocations = new Map<string, Invocation>();
  return (span) => {
    const invocation = classify(span);
    if (!invocation) return undefined;
    const { dialect, agentIdentity, conversationId } = invocation;
    const key = JSON.stringify([dialect, agentIdentity ?? null, conversationId ?? null]);
    const known = invocations.get(key);
    if (known) return known;
    if (invocations.size < MAX_SHARED_INVOCATIONS) invocations.set(key, invocation);
    return invocation;
  };
}

/** The parent kind of prepared span `i`. */
export function parentKind(prepared: PreparedSpans, i: number): number {
  return prepared.numbers[i * PREPARED_FIELDS + KIND] & 3;
}

/** The invocation prepared span `i` is, or undefined. */
export function invocationOf(prepared: PreparedSpans, i: number): Invocation | undefined {
  const index = prepared.numbers[i * PREPARED_FIELDS + KIND] >> 2;
  return index === 0 ? undefined : prepared.invocations[index - 1];
}

export function prepareSpans(
  heads: readonly SpanHead[],
  classify: (span: SpanHead) => Invocation | undefined,
): PreparedSpans {
  const numbers = new Int32Array(heads.length * PREPARED_FIELDS);
  const traceIds: string[] = [];
  const invocations: Invocation[] = [];
  const traceIndex = new Map<string, number>();
  let lastTraceId: string | undefined;
  let lastTrace = -1;
  for (let i = 0, at = 0; i < heads.length; i++, at += PREPARED_FIELDS) {
    const span = heads[i];
    // Most spans follow another of their trace (the receiver gives them the same string).
    if (span.traceId !== lastTraceId) {
      lastTraceId = span.traceId;
      lastTrace = traceIndex.get(lastTraceId) ?? -1;
      if (lastTrace < 0) {
        lastTrace = traceIds.length;
        traceIds.push(lastTraceId);
        traceIndex.set(lastTraceId, lastTrace);
      }
    }
    numbers[at + TRACE] = lastTrace;
    // A head the receiver read as bytes has its ids as numbers already (no hex string is made).
    numbers[at + SPAN_HIGH] = span.spanIdHigh ?? idHalf(span.spanId, 0);
    numbers[at + SPAN_LOW] = span.spanIdLow ?? idHalf(span.spanId, 8);
    let kind = PARENT_NONE;
    if (span.spanIdHigh !== undefined ? span.parentIdHigh !== undefined : span.parentSpanId !== undefined) {
      numbers[at + PARENT_HIGH] = span.parentIdHigh ?? idHalf(span.parentSpanId!, 0);
      numbers[at + PARENT_LOW] = span.parentIdLow ?? idHalf(span.parentSpanId!, 8);
      kind = (span.flags & SPAN_FLAGS_IS_REMOTE) !== 0 ? PARENT_REMOTE : PARENT_LOCAL;
    }
    const invocation = classify(span);
    if (invocation) {
      let index = invocations.indexOf(invocation);
      if (index < 0) index = invocations.push(invocation) - 1;
      kind |= (index + 1) << 2;
    }
    numbers[at + KIND] = kind;
  }
  return { count: heads.length, traceIds, numbers, invocations };
}

/**
 * The spans of the traces of `prepared` whose entry in `wanted` (by trace index) is set, in the order
 * received: a stored batch split between the assembler and the traces waiting for its room.
 */
export function selectTraces(prepared: PreparedSpans, wanted: Uint8Array): PreparedSpans {
  const { numbers } = prepared;
  const end = prepared.count * PREPARED_FIELDS;
  let count = 0;
  for (let at = TRACE; at < end; at += PREPARED_FIELDS) count += wanted[numbers[at]];
  const selected = new Int32Array(count * PREPARED_FIELDS);
  const traceIds: string[] = [];
  const renumbered = new Int32Array(prepared.traceIds.length).fill(-1);
  let to = 0;
  for (let at = 0; at < end; at += PREPARED_FIELDS) {
    const trace = numbers[at + TRACE];
    if (wanted[trace] === 0) continue;
    if (renumbered[trace] < 0) renumbered[trace] = traceIds.push(prepared.traceIds[trace]) - 1;
    for (let field = 0; field < PREPARED_FIELDS; field++) selected[to + field] = numbers[at + field];
    selected[to + TRACE] = renumbered[trace];
    to += PREPARED_FIELDS;
  }
  // The invocations stay as they are: the spans' kinds index them.
  return { count, traceIds, numbers: selected, invocations: prepared.invocations };
}
