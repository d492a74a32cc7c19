/**
 * Interaction assembly: groups received spans by trace, decides from the span tree when each
 * interaction is complete (the completion policy below; docs/interactions.md), and reports late
 * spans. Time is injected (`now` arguments), so tests drive it without sleeping; the processor owns
 * the real clock and the store.
 *
 * The policy, per interaction root R of a pending trace:
 * - structural completion when every span that could still belong to R has arrived — no span of
 *   the trace waits for a missing local parent, except spans hanging off R's own ancestors —,
 *   R's ancestry is known (the chain of parents reaches a root, a remote parent or an enclosing
 *   invocation) or R names its own agent (so no enclosing invocation could absorb it), and no
 *   span of R arrived within the settle window;
 * - otherwise completion `timeout` once `decision_wait` has passed since the trace's last span,
 *   or when the trace is evicted because `max_pending_traces` is exceeded.
 */
import { hexId, type SpanHead } from '../../model/span.ts';
import { interactionIdOf, type Completion } from '../../../src/model/records.ts';
import { classifyInvocation, type Invocation } from './classify.ts';
import type { Decisions, InteractionDecision } from './decisions.ts';
import { NONE, readiness, resolveOwnership, type Ownership } from './ownership.ts';
import { createDecidedCache } from './decided-cache.ts';
import { createPendingConversations } from './pending-conversations.ts';
import { createSpanSlab } from './span-slab.ts';
import {
  PARENT_HIGH,
  PARENT_LOCAL,
  PARENT_LOW,
  PARENT_NONE,
  PREPARED_FIELDS,
  SPAN_HIGH,
  SPAN_LOW,
  TRACE,
  invocationOf,
  parentKind,
  prepareSpans,
  sharingInvocations,
  type PreparedSpans,
} from './prepared-spans.ts';
import {
  OWNER,
  SPAN_FIELDS,
  UNDECIDED,
  addDecided,
  addSpan,
  allOf,
  decidedMembers,
  decidedOwner,
  fieldOf,
  findSpan,
  freeSpans,
  newTrace,
  reserveSpans,
  setField,
  spanCount as spansOf,
  spanIdAt,
  type TraceState,
} from './trace-state.ts';

export type { Decisions, InteractionDecision } from './decisions.ts';

export interface AssemblerOptions {
  settleMs: number;
  decisionWaitMs: number;
  maxPendingTraces: number;
  /**
   * How many decided traces are remembered for late-span detection (default: maxPendingTraces).
   * A decided trace is also forgotten `decisionWaitMs` after its decision.
   */
  decidedCacheSize?: number;
  /** Timer granularity in ms (default 100). */
  granularityMs?: number;
  onEvict?: (traceId: string, pendingTraces: number) => void;
  classify?: (span: SpanHead) => Invocation | undefined;
}

export interface AddResult {
  /** Spans of interactions already decided. */
  late: Array<{ traceId: string; spanId: string; interactionId: string }>;
  duplicates: number;
}

export interface AssemblerStats {
  evictedTraces: number;
  lateSpans: number;
  duplicateSpans: number;
  unassignedSpans: number;
  completed: { structural: number; timeout: number };
}

export interface Assembler {
  /** Adds received spans (their heads: ids, flags and what `classify` reads are enough). */
  add(spans: readonly SpanHead[], now: number): AddResult;
  /** What `addPrepared` needs of spans' heads (prepared-spans.ts): `add` in two steps. */
  prepare(spans: readonly SpanHead[]): PreparedSpans;
  addPrepared(spans: PreparedSpans, now: number): AddResult;
  /**
   * Decides what is due. With `maxSpans`, stops once the traces checked hold that many spans
   * (`more` says so); the rest is checked by the next call, first.
   */
  collectDue(now: number, maxSpans?: number): Decisions;
  /** Decides every pending trace now (completion `timeout` for what is not structurally complete). */
  flushAll(now: number): Decisions;
  pendingTraces(): number;
  pendingSpans(): number;
  /** True while the trace has spans waiting for a decision. */
  isPending(traceId: string): boolean;
  /**
   * True while an invocation naming this conversation waits for its interaction's decision: a turn
   * of it is on its way, so the conversation is not closed yet.
   */
  hasPendingConversation(conversationId: string): boolean;
  readonly stats: AssemblerStats;
}

export function createAssembler(options: AssemblerOptions): Assembler {
  const granularity = options.granularityMs ?? 100;
  const classify = options.classify ?? classifyInvocation;
  const pending = new Map<string, TraceState>();
  /** The pending traces' spans. */
  const slab = createSpanSlab(SPAN_FIELDS);
  const decided = createDecidedCache();
  const decidedLimit = options.decidedCacheSize ?? options.maxPendingTraces;
  const buckets = new Map<number, Set<string>>();
  const conversations = createPendingConversations();
  let lastBucket = -1;
  /** The clock time of the first call: times inside count from it, so they are small integers. */
  let epoch: number | undefined;
  const sinceEpoch = (now: number) => {
    epoch ??= now;
    const time = now - epoch;
    // As V8's small integers (up to 2^30, 12 days of milliseconds): the difference of two clock
    // readings is a double, and the traces would keep it as a boxed number, 16 bytes each.
    return time < 0x40000000 && time >= 0 ? time | 0 : time;
  };
  /** The bucket being swept by collectDue, or -1. */
  let sweeping = -1;
  let pendingSpanCount = 0;
  const stats: AssemblerStats = {
    evictedTraces: 0,
    lateSpans: 0,
    duplicateSpans: 0,
    unassignedSpans: 0,
    completed: { structural: 0, timeout: 0 },
  };

  const bucketOf = (time: number) => Math.ceil(time / granularity);

  const classified = sharingInvocations(classify);

  function schedule(trace: TraceState, time: number): void {
    if (trace.dueAt !== undefined && trace.dueAt <= time) return;
    trace.dueAt = time;
    // Never into a bucket already swept: it would not be looked at again.
    const bucket = Math.max(bucketOf(time), lastBucket + 1, sweeping + 1);
    trace.dueBucket = bucket;
    let set = buckets.get(bucket);
    if (!set) {
      set = new Set();
      buckets.set(bucket, set);
    }
    set.add(trace.traceId);
  }

  function rememberDecided(trace: TraceState, now: number): void {
    const members = decidedMembers(trace);
    if (members) decided.set(trace.traceId, members, now);
    else decided.delete(trace.traceId);
    decided.forget(-Infinity, decidedLimit);
  }

  /** Forgets decided traces older than decision_wait: a span arriving later starts afresh. */
  function forgetDecided(now: number): void {
    decided.forget(now - options.decisionWaitMs, decidedLimit);
  }

  function addPrepared(spans: PreparedSpans, clockNow: number): AddResult {
    const now = sinceEpoch(clockNow);
    const result: AddResult = { late: [], duplicates: 0 };
    const touched = new Set<TraceState>();
    const numbers = spans.numbers;
    let traceIndex = -1;
    let trace!: TraceState;
    for (let i = 0, at = 0; i < spans.count; i++, at += PREPARED_FIELDS) {
      if (numbers[at + TRACE] !== traceIndex) {
        traceIndex = numbers[at + TRACE];
        const traceId = spans.traceIds[traceIndex];
        let found = pending.get(traceId);
        if (!found) {
          found = newTrace(traceId, slab, now, decided.take(traceId));
          pending.set(traceId, found);
        }
        trace = found;
        // The request's spans of a trace come together (the receiver cuts a request by trace).
        let run = 1;
        while (i + run < spans.count && numbers[at + run * PREPARED_FIELDS + TRACE] === traceIndex) run++;
        reserveSpans(trace, run);
      }
      const high = numbers[at + SPAN_HIGH];
      const low = numbers[at + SPAN_LOW];
      if (findSpan(trace, high, low) >= 0 || (trace.decided && decidedOwner(trace, high, low) !== undefined)) {
        // A retried delivery of a span already received.
        result.duplicates++;
        continue;
      }
      const parent = parentKind(spans, i);
      const parentHigh = numbers[at + PARENT_HIGH];
      const parentLow = numbers[at + PARENT_LOW];
      const lateFor = parent !== PARENT_NONE ? decidedOwner(trace, parentHigh, parentLow) : undefined;
      if (lateFor !== undefined) {
        // Its interaction was already decided: recorded as late, never merged into the record.
        addDecided(trace, high, low, lateFor);
        result.late.push({ traceId: trace.traceId, spanId: hexId(high, low), interactionId: lateFor });
        touched.add(trace);
        continue;
      }
      // Milliseconds after the trace's first span: a small integer.
      const arrived = Math.min(now - trace.firstArrival, 0x7fffffff);
      addSpan(trace, high, low, parent === PARENT_LOCAL, parentHigh, parentLow, arrived, invocationOf(spans, i));
      conversations.count(trace, spansOf(trace) - 1);
      trace.lastArrival = now;
      pendingSpanCount++;
      touched.add(trace);
    }
    for (const trace of touched) {
      if (spansOf(trace) === 0) {
        // Only late spans: nothing is pending for this trace.
        pending.delete(trace.traceId);
        rememberDecided(trace, now);
      } else {
        schedule(trace, now + options.settleMs);
      }
    }
    stats.lateSpans += result.late.length;
    stats.duplicateSpans += result.duplicates;
    return result;
  }

  function emptyDecisions(): Decisions {
    return { interactions: [], releasedTraces: [], unassignedSpans: 0, unassigned: new Map(), more: false };
  }

  /** Checks one trace; with `force`, decides everything still pending as `timeout`. */
  function check(trace: TraceState, now: number, force: boolean, out: Decisions): void {
    const ownership = resolveOwnership(trace);
    const expired = force || now - trace.lastArrival >= options.decisionWaitMs;
    let waiting = false;
    let nextSettle = Infinity;
    // Roots to decide, in order, each with its completion: one structurally complete is that even
    // when the check comes after decision_wait (a tick late on a loaded collector).
    const ready: Array<[number, Completion]> = [];
    for (const root of ownership.roots) {
      if (fieldOf(trace, root, OWNER) !== UNDECIDED) continue;
      const state = force ? 'blocked' : readiness(trace, ownership, root, now, options.settleMs);
      if (state === 'ready') ready.push([root, 'structural']);
      else if (expired) ready.push([root, 'timeout']);
      else if (state === 'blocked') waiting = true;
      else {
        waiting = true;
        nextSettle = Math.min(nextSettle, state);
      }
    }
    for (const [root, completion] of ready) decide(trace, ownership, root, completion, out);

    const allDecided = ownership.roots.every((root) => fieldOf(trace, root, OWNER) !== UNDECIDED);
    const settledTrace = now - trace.lastArrival >= options.settleMs;
    if (expired || (allDecided && ownership.orphans.length === 0 && settledTrace)) {
      out.unassignedSpans += ownership.unowned.length;
      stats.unassignedSpans += ownership.unowned.length;
      if (ownership.unowned.length > 0) {
        out.unassigned.set(
          trace.traceId,
          ownership.unowned.map((span) => spanIdAt(trace, span)),
        );
      }
      for (const span of allOf(trace.conversationSpans)) conversations.uncount(trace, span);
      pending.delete(trace.traceId);
      pendingSpanCount -= spansOf(trace);
      rememberDecided(trace, now);
      freeSpans(trace);
      out.releasedTraces.push(trace.traceId);
      return;
    }
    const decisionAt = trace.lastArrival + options.decisionWaitMs;
    if (!waiting && allDecided) schedule(trace, Math.min(trace.lastArrival + options.settleMs, decisionAt));
    else schedule(trace, Math.min(nextSettle, decisionAt));
  }

  function decide(trace: TraceState, ownership: Ownership, root: number, completion: Completion, out: Decisions): void {
    const rootSpanId = spanIdAt(trace, root);
    const interactionId = interactionIdOf(trace.traceId, rootSpanId);
    const { enclosing, firstMember, nextMember } = ownership;
    const nested: InteractionDecision['nested'] = [];
    const memberSpanIds: string[] = [];
    for (let span = firstMember[root]; span !== NONE; span = nextMember[span])
      memberSpanIds.push(spanIdAt(trace, span));
    for (const inner of ownership.roots) {
      if (enclosing[inner] !== root) continue;
      const spanId = spanIdAt(trace, inner);
      nested.push({ spanId, interactionId: interactionIdOf(trace.traceId, spanId) });
    }
    const outer = enclosing[root];
    out.interactions.push({
      traceId: trace.traceId,
      rootSpanId,
      interactionId,
      memberSpanIds,
      nested,
      flowId: outer !== NONE ? interactionIdOf(trace.traceId, spanIdAt(trace, outer)) : undefined,
      completion,
    });
    trace.interactions ??= [];
    const owner = trace.interactions.push(interactionId) - 1;
    for (let span = firstMember[root]; span !== NONE; span = nextMember[span]) {
      setField(trace, span, OWNER, owner);
      conversations.uncount(trace, span);
    }
    stats.completed[completion]++;
  }

  function evictOverflow(now: number, out: Decisions): void {
    while (pending.size > options.maxPendingTraces) {
      const oldest = pending.values().next().value!;
      stats.evictedTraces++;
      options.onEvict?.(oldest.traceId, pending.size);
      check(oldest, now, true, out);
    }
  }

  function collectDue(clockNow: number, maxSpans = Infinity): Decisions {
    const now = sinceEpoch(clockNow);
    const out = emptyDecisions();
    forgetDecided(now);
    // After a burst: the spans of what is still pending move to a smaller array.
    if (slab.wasteful()) slab.compact(pending.values());
    evictOverflow(now, out);
    const current = bucketOf(now);
    if (lastBucket < 0) lastBucket = Math.min(current, ...buckets.keys()) - 1;
    let checked = 0;
    for (let bucket = lastBucket + 1; bucket <= current; bucket++) {
      const set = buckets.get(bucket);
      if (!set) continue;
      sweeping = bucket;
      buckets.delete(bucket);
      const due = set.values();
      for (let next = due.next(); !next.done; next = due.next()) {
        const traceId = next.value;
        const trace = pending.get(traceId);
        if (!trace || trace.dueAt === undefined || trace.dueBucket !== bucket) continue;
        if (checked >= maxSpans) {
          // Over this call's budget: the rest of the bucket is the next call's first.
          const rest = new Set([traceId, ...due]);
          const later = buckets.get(bucket);
          if (later) for (const id of later) rest.add(id);
          buckets.set(bucket, rest);
          sweeping = -1;
          lastBucket = bucket - 1;
          out.more = true;
          return out;
        }
        trace.dueAt = undefined;
        trace.dueBucket = undefined;
        checked += spansOf(trace);
        check(trace, now, false, out);
      }
    }
    sweeping = -1;
    lastBucket = current;
    return out;
  }

  function flushAll(clockNow: number): Decisions {
    const now = sinceEpoch(clockNow);
    const out = emptyDecisions();
    for (const trace of [...pending.values()]) check(trace, now, true, out);
    buckets.clear();
    return out;
  }

  const prepare = (spans: readonly SpanHead[]) => prepareSpans(spans, classified);
  return {
    add: (spans, now) => addPrepared(prepare(spans), now),
    prepare,
    addPrepared,
    collectDue,
    flushAll,
    pendingTraces: () => pending.size,
    isPending: (traceId) => pending.has(traceId),
    hasPendingConversation: conversations.has,
    pendingSpans: () => pendingSpanCount,
    stats,
  };
}
