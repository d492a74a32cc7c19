/**
 * Which interaction every pending span of a trace belongs to, with the merge rule
 * (docs/interactions.md, "Which interaction a span belongs to"): an invocation nested in another
 * whose agent identity is absent or the same belongs to the enclosing interaction; a different
 * identity starts an interaction of its own. Spans are their indices in the trace (trace-state.ts).
 *
 * Resolved for every check of a pending trace, so it allocates next to nothing: the answer lives in
 * scratch arrays of this module, valid until the next call (the assembler reads it within one check).
 */
import {
  ARRIVED,
  INVOCATION,
  NOT_INVOCATION,
  NO_PARENT,
  PARENT,
  SPAN_FIELDS,
  fieldOf,
  invocationAt,
  spanCount,
} from './trace-state.ts';
import type { PendingTraces } from './pending-traces.ts';

/** No interaction root (a span of none; a root nested in none). */
export const NONE = -1;

export interface Ownership {
  /** Spans of the trace: the arrays below are valid for this many entries. */
  readonly count: number;
  /** Per span: the root (span index) of the interaction it belongs to, or `NONE`. */
  readonly rootOf: Int32Array;
  /** The interaction roots, in the order of their first member. */
  readonly roots: number[];
  /**
   * Per interaction root: its first member (the lowest span index); per span: the next member of
   * its interaction, or `NONE`. A root's members in index order, without a scan of every span.
   */
  readonly firstMember: Int32Array;
  readonly nextMember: Int32Array;
  /** Per interaction root: the root of the interaction it is nested in (another agent), or `NONE`. */
  readonly enclosing: Int32Array;
  /** Per interaction root: 1 when its chain of parents is cut by a span that has not arrived. */
  readonly cut: Uint8Array;
  /** Spans whose parent is local (or unknown) and has not arrived. */
  readonly orphans: number[];
  /** Spans that belong to no interaction. */
  readonly unowned: number[];
}

/**
 * Where walking up the parents from a span ends: an invocation's index, `ROOT` (a span with no
 * parent, or a remote one), or `CUT` (a parent that has not arrived, and may still arrive).
 */
const ROOT = -1;
const CUT = -2;
const UNKNOWN = -3;

/** The scratch arrays, grown to the largest trace resolved so far. */
let chainEnd = new Int32Array(64);
let owner = new Int32Array(64);
let rootOf = new Int32Array(64);
let enclosing = new Int32Array(64);
let firstMember = new Int32Array(64);
let lastMember = new Int32Array(64);
let nextMember = new Int32Array(64);
let cut = new Uint8Array(64);
let listed = new Uint8Array(64);
const path: number[] = [];
const answer = {
  count: 0,
  rootOf,
  roots: [] as number[],
  firstMember,
  nextMember,
  enclosing,
  cut,
  orphans: [] as number[],
  unowned: [] as number[],
};

function reserve(count: number): void {
  if (chainEnd.length >= count) return;
  const size = Math.max(count, chainEnd.length * 2);
  chainEnd = new Int32Array(size);
  owner = new Int32Array(size);
  rootOf = new Int32Array(size);
  enclosing = new Int32Array(size);
  firstMember = new Int32Array(size);
  lastMember = new Int32Array(size);
  nextMember = new Int32Array(size);
  cut = new Uint8Array(size);
  listed = new Uint8Array(size);
}

export function resolveOwnership(traces: PendingTraces, trace: number): Ownership {
  const spans = traces.slab.data;
  const base = traces.at[trace];
  const count = spanCount(traces, trace);
  reserve(count);
  chainEnd.fill(UNKNOWN, 0, count);
  owner.fill(UNKNOWN, 0, count);
  enclosing.fill(NONE, 0, count);
  cut.fill(0, 0, count);
  listed.fill(0, 0, count);
  const parentOf = (i: number) => spans[base + i * SPAN_FIELDS + PARENT];
  const isInvocation = (i: number) => spans[base + i * SPAN_FIELDS + INVOCATION] !== NOT_INVOCATION;
  const identityOf = (i: number) => invocationAt(traces, trace, i)!.agentIdentity;

  // Span → the nearest enclosing invocation or chain end above it (itself excluded), once known.
  const endAbove = (start: number): number => {
    const cached = chainEnd[start];
    if (cached !== UNKNOWN) return cached;
    path.length = 0;
    let current = start;
    let end: number;
    for (;;) {
      const parent = parentOf(current);
      if (parent === NO_PARENT) {
        end = ROOT;
        break;
      }
      if (parent < NO_PARENT) {
        end = CUT;
        break;
      }
      if (isInvocation(parent)) {
        end = parent;
        break;
      }
      const known = chainEnd[parent];
      if (known !== UNKNOWN) {
        end = known;
        break;
      }
      // A cycle of parents (a span its own ancestor: never legitimate) ends like a root.
      if (path.length >= count) {
        end = ROOT;
        break;
      }
      path.push(parent);
      current = parent;
    }
    chainEnd[start] = end;
    for (const step of path) chainEnd[step] = end;
    return end;
  };

  // Invocation span → the interaction root it belongs to (itself when it starts one), once known.
  const rootOfInvocation = (span: number, depth = 0): number => {
    const known = owner[span];
    if (known !== UNKNOWN) return known;
    let root = span;
    const end = endAbove(span);
    if (end >= 0 && depth < 256) {
      const outerRoot = rootOfInvocation(end, depth + 1);
      const own = identityOf(span);
      // A root's identity is its own span's: it starts its interaction.
      if (own === undefined || own === identityOf(outerRoot)) root = outerRoot;
    }
    owner[span] = root;
    return root;
  };

  const roots: number[] = [];
  const orphans: number[] = [];
  const unowned: number[] = [];
  for (let span = 0; span < count; span++) {
    let root = NONE;
    if (isInvocation(span)) root = rootOfInvocation(span);
    else {
      const end = endAbove(span);
      if (end >= 0) root = rootOfInvocation(end);
    }
    rootOf[span] = root;
    nextMember[span] = NONE;
    if (root === NONE) unowned.push(span);
    else if (listed[root] === 0) {
      listed[root] = 1;
      roots.push(root);
      firstMember[root] = span;
      lastMember[root] = span;
    } else {
      nextMember[lastMember[root]] = span;
      lastMember[root] = span;
    }
    if (parentOf(span) < NO_PARENT) orphans.push(span);
  }

  for (const root of roots) {
    const end = endAbove(root);
    if (end >= 0) enclosing[root] = rootOfInvocation(end);
    let current = root;
    // More steps than spans can only be a cycle of parents.
    for (let steps = 0; parentOf(current) !== NO_PARENT && steps <= count; steps++) {
      const parent = parentOf(current);
      if (parent < NO_PARENT) {
        cut[root] = 1;
        break;
      }
      current = parent;
    }
  }
  answer.count = count;
  answer.rootOf = rootOf;
  answer.roots = roots;
  answer.firstMember = firstMember;
  answer.nextMember = nextMember;
  answer.enclosing = enclosing;
  answer.cut = cut;
  answer.orphans = orphans;
  answer.unowned = unowned;
  return answer;
}

/**
 * Whether `value` — a span index, or a missing parent's `PARENT` value — is above interaction root
 * `root` in the trace: on its chain of parents, up to where the chain ends.
 */
export function isAbove(traces: PendingTraces, trace: number, root: number, value: number): boolean {
  const spans = traces.slab.data;
  const base = traces.at[trace];
  const count = spanCount(traces, trace);
  let current = root;
  for (let steps = 0; steps <= count; steps++) {
    const parent = spans[base + current * SPAN_FIELDS + PARENT];
    if (parent === NO_PARENT) return false;
    if (parent === value) return true;
    if (parent < NO_PARENT) return false;
    current = parent;
  }
  return false;
}

/**
 * Whether root `root`'s interaction can be decided at `now`: 'ready', 'blocked' (it waits for
 * spans), or the time at which its settle window ends (times as the trace's, `settleMs` its window).
 */
export function readiness(
  traces: PendingTraces,
  trace: number,
  ownership: Ownership,
  root: number,
  now: number,
  settleMs: number,
): 'ready' | 'blocked' | number {
  for (const orphan of ownership.orphans) {
    // A span waiting for a parent that may be inside R; one hanging off R's ancestors cannot be.
    const parent = fieldOf(traces, trace, orphan, PARENT);
    if (!isAbove(traces, trace, root, parent) && !isAbove(traces, trace, root, orphan)) return 'blocked';
  }
  if (ownership.cut[root] === 1 && invocationAt(traces, trace, root)!.agentIdentity === undefined) return 'blocked';
  let lastActivity = 0;
  const { firstMember, nextMember } = ownership;
  for (let span = firstMember[root]; span !== NONE; span = nextMember[span]) {
    lastActivity = Math.max(lastActivity, fieldOf(traces, trace, span, ARRIVED));
  }
  const settledAt = traces.firstArrival[trace] + lastActivity + settleMs;
  return settledAt <= now ? 'ready' : settledAt;
}
