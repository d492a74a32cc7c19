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
import { closeTrace, compactSpans, createPendingTraces, openTrace } from './pending-traces.ts';
import {
  OWNER,
  SPAN_FIELDS,
  UNDECIDED,
  addDecided,
  addInteraction,
  addSpan,
  allOf,
  decidedMembers,
  decidedOwner,
  fieldOf,
  findSpan,
  hasDecided,
  reserveSpans,
  setField,
  spanIdAt,
} from './trace-state.ts';

export type { Decisions, InteractionDecision } from './decisions.ts';

export interface AssemblerOptions {
  settleMs: number;
  decisionWaitMs: number;
  maxPendingTraces: number;
  /** Decided traces remembered to find late spans (default maxPendingTraces), each decisionWaitMs at most. */
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
  /** Pending, or its decided interactions remembered: its new spans are this assembler's (or late). */
  knows(traceId: string): boolean;
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
  /** Each pending trace's slot in `traces`, in the order the traces first arrived. */
  const pending = new Map<string, number>();
  /** The pending traces, and their spans. */
  const traces = createPendingTraces(createSpanSlab(SPAN_FIELDS));
  const decided = createDecidedCache();
  const decidedLimit = options.decidedCacheSize ?? options.maxPendingTraces;
  /**
   * Timer buckets: the slots due for a check in each. A slot is checked only if it is still due in
   * that bucket (`dueBucket`): one scheduled again, checked or let go leaves a stale entry behind.
   */
  const buckets = new Map<number, number[]>();
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

  function schedule(trace: number, time: number): void {
    if (traces.dueAt[trace] <= time) return; // due sooner already (false for NaN: not scheduled)
    traces.dueAt[trace] = time;
    // Never into a bucket already swept: it would not be looked at again.
    const bucket = Math.max(bucketOf(time), lastBucket + 1, sweeping + 1);
    traces.dueBucket[trace] = bucket;
    const due = buckets.get(bucket);
    if (due) due.push(trace);
    else buckets.set(bucket, [trace]);
  }

  /** Whether slot `trace` is due in `bucket` (entries may be stale; a NaN bucket equals none). */
  const dueIn = (trace: number, bucket: number) => traces.dueBucket[trace] === bucket;

  /** The trace is no longer pending: its decided members are remembered, its slot let go. */
  function release(trace: number, now: number): void {
    const traceId = traces.traceIds[trace];
    pending.delete(traceId);
    const members = decidedMembers(traces, trace);
    if (members) decided.set(traceId, members, now);
    else decided.delete(traceId);
    decided.forget(-Infinity, decidedLimit);
    closeTrace(traces, trace);
  }

  /** Forgets decided traces older than decision_wait: a span arriving later starts afresh. */
  function forgetDecided(now: number): void {
    decided.forget(now - options.decisionWaitMs, decidedLimit);
  }

  function addPrepared(spans: PreparedSpans, clockNow: number): AddResult {
    const now = sinceEpoch(clockNow);
    const result: AddResult = { late: [], duplicates: 0 };
    const touched = new Set<number>();
    const numbers = spans.numbers;
    let traceIndex = -1;
    let trace = -1;
    for (let i = 0, at = 0; i < spans.count; i++, at += PREPARED_FIELDS) {
      if (numbers[at + TRACE] !== traceIndex) {
        traceIndex = numbers[at + TRACE];
        const traceId = spans.traceIds[traceIndex];
        let found = pending.get(traceId);
        if (found === undefined) {
          found = openTrace(traces, traceId, now, decided.take(traceId));
          pending.set(traceId, found);
        }
        trace = found;
        // Looked at below even when every span is a duplicate or late: a trace left with none is let go.
        touched.add(trace);
        // The request's spans of a trace come together (the receiver cuts a request by trace).
        let run = 1;
        while (i + run < spans.count && numbers[at + run * PREPARED_FIELDS + TRACE] === traceIndex) run++;
        reserveSpans(traces, trace, run);
      }
      const high = numbers[at + SPAN_HIGH];
      const low = numbers[at + SPAN_LOW];
      if (
        findSpan(traces, trace, high, low) >= 0 ||
        (hasDecided(traces, trace) && decidedOwner(traces, trace, high, low) !== undefined)
      ) {
        // A retried delivery of a span already received.
        result.duplicates++;
        continue;
      }
      const parent = parentKind(spans, i);
      const parentHigh = numbers[at + PARENT_HIGH];
      const parentLow = numbers[at + PARENT_LOW];
      const lateFor = parent !== PARENT_NONE ? decidedOwner(traces, trace, parentHigh, parentLow) : undefined;
      if (lateFor !== undefined) {
        // Its interaction was already decided: recorded as late, never merged into the record.
        addDecided(traces, trace, high, low, lateFor);
        result.late.push({ traceId: traces.traceIds[trace], spanId: hexId(high, low), interactionId: lateFor });
        continue;
      }
      // Milliseconds after the trace's first span: a small integer.
      const arrived = Math.min(now - traces.firstArrival[trace], 0x7fffffff);
      const invocation = invocationOf(spans, i);
      addSpan(traces, trace, high, low, parent === PARENT_LOCAL, parentHigh, parentLow, arrived, invocation);
      conversations.count(traces, trace, traces.count[trace] - 1);
      traces.lastArrival[trace] = now;
      pendingSpanCount++;
    }
    for (const trace of touched) {
      // Only late or retried spans: nothing is pending for this trace.
      if (traces.count[trace] === 0) release(trace, now);
      else schedule(trace, now + options.settleMs);
    }
    stats.lateSpans += result.late.length;
    stats.duplicateSpans += result.duplicates;
    return result;
  }

  function emptyDecisions(): Decisions {
    return { interactions: [], releasedTraces: [], unassignedSpans: 0, unassigned: new Map(), more: false };
  }

  /** Checks one trace; with `force`, decides everything still pending as `timeout`. */
  function check(trace: number, now: number, force: boolean, out: Decisions): void {
    const ownership = resolveOwnership(traces, trace);
    const lastArrival = traces.lastArrival[trace];
    const expired = force || now - lastArrival >= options.decisionWaitMs;
    let waiting = false;
    let nextSettle = Infinity;
    // Roots to decide, in order, each with its completion: one structurally complete is that even
    // when the check comes after decision_wait (a tick late on a loaded collector).
    const ready: Array<[number, Completion]> = [];
    for (const root of ownership.roots) {
      if (fieldOf(traces, trace, root, OWNER) !== UNDECIDED) continue;
      const state = force ? 'blocked' : readiness(traces, trace, ownership, root, now, options.settleMs);
      if (state === 'ready') ready.push([root, 'structural']);
      else if (expired) ready.push([root, 'timeout']);
      else if (state === 'blocked') waiting = true;
      else {
        waiting = true;
        nextSettle = Math.min(nextSettle, state);
      }
    }
    for (const [root, completion] of ready) decide(trace, ownership, root, completion, out);

    const allDecided = ownership.roots.every((root) => fieldOf(traces, trace, root, OWNER) !== UNDECIDED);
    const settledTrace = now - lastArrival >= options.settleMs;
    if (expired || (allDecided && ownership.orphans.length === 0 && settledTrace)) {
      const traceId = traces.traceIds[trace];
      out.unassignedSpans += ownership.unowned.length;
      stats.unassignedSpans += ownership.unowned.length;
      if (ownership.unowned.length > 0) {
        out.unassigned.set(
          traceId,
          ownership.unowned.map((span) => spanIdAt(traces, trace, span)),
        );
      }
      for (const span of allOf(traces.conversationSpans[trace])) conversations.uncount(traces, trace, span);
      pendingSpanCount -= traces.count[trace];
      release(trace, now);
      out.releasedTraces.push(traceId);
      return;
    }
    const decisionAt = lastArrival + options.decisionWaitMs;
    if (!waiting && allDecided) schedule(trace, Math.min(lastArrival + options.settleMs, decisionAt));
    else schedule(trace, Math.min(nextSettle, decisionAt));
  }

  function decide(trace: number, ownership: Ownership, root: number, completion: Completion, out: Decisions): void {
    const traceId = traces.traceIds[trace];
    const rootSpanId = spanIdAt(traces, trace, root);
    const interactionId = interactionIdOf(traceId, rootSpanId);
    const { enclosing, firstMember, nextMember } = ownership;
    const nested: InteractionDecision['nested'] = [];
    const memberSpanIds: string[] = [];
    for (let span = firstMember[root]; span !== NONE; span = nextMember[span])
      memberSpanIds.push(spanIdAt(traces, trace, span));
    for (const inner of ownership.roots) {
      if (enclosing[inner] !== root) continue;
      const spanId = spanIdAt(traces, trace, inner);
      nested.push({ spanId, interactionId: interactionIdOf(traceId, spanId) });
    }
    const outer = enclosing[root];
    out.interactions.push({
      traceId,
      rootSpanId,
      interactionId,
      memberSpanIds,
      nested,
      flowId: outer !== NONE ? interactionIdOf(traceId, spanIdAt(traces, trace, outer)) : undefined,
      completion,
    });
    const owner = addInteraction(traces, trace, interactionId);
    for (let span = firstMember[root]; span !== NONE; span = nextMember[span]) {
      setField(traces, trace, span, OWNER, owner);
      conversations.uncount(traces, trace, span);
    }
    stats.completed[completion]++;
  }

  function evictOverflow(now: number, out: Decisions): void {
    while (pending.size > options.maxPendingTraces) {
      const oldest = pending.values().next().value!;
      stats.evictedTraces++;
      options.onEvict?.(traces.traceIds[oldest], pending.size);
      check(oldest, now, true, out);
    }
  }

  function collectDue(clockNow: number, maxSpans = Infinity): Decisions {
    const now = sinceEpoch(clockNow);
    const out = emptyDecisions();
    forgetDecided(now);
    // After a burst: the spans of what is still pending move to a smaller array.
    if (traces.slab.wasteful()) compactSpans(traces, pending.values());
    evictOverflow(now, out);
    const current = bucketOf(now);
    if (lastBucket < 0) lastBucket = Math.min(current, ...buckets.keys()) - 1;
    let checked = 0;
    for (let bucket = lastBucket + 1; bucket <= current; bucket++) {
      const due = buckets.get(bucket);
      if (!due) continue;
      sweeping = bucket;
      buckets.delete(bucket);
      for (let i = 0; i < due.length; i++) {
        const trace = due[i];
        if (!dueIn(trace, bucket)) continue;
        if (checked >= maxSpans) {
          // Over this call's budget: the rest of the bucket is the next call's first.
          const rest = due.slice(i);
          const later = buckets.get(bucket);
          if (later) rest.push(...later);
          buckets.set(bucket, rest);
          sweeping = -1;
          lastBucket = bucket - 1;
          out.more = true;
          return out;
        }
        traces.dueAt[trace] = Number.NaN;
        traces.dueBucket[trace] = Number.NaN;
        checked += traces.count[trace];
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
    knows: (traceId) => pending.has(traceId) || decided.has(traceId),
    hasPendingConversation: conversations.has,
    pendingSpans: () => pendingSpanCount,
    stats,
  };
}
