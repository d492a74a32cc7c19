/**
 * Which interaction every pending span of a trace belongs to, with the merge rule
 * (docs/interactions.md, "Which interaction a span belongs to"): an invocation nested in another
 * whose agent identity is absent or the same belongs to the enclosing interaction; a different
 * identity starts an interaction of its own. Spans are their indices in the trace (trace-state.ts).
 */
import {
  INVOCATION,
  NOT_INVOCATION,
  NO_PARENT,
  PARENT,
  SPAN_FIELDS,
  spanCount,
  type TraceState,
} from './trace-state.ts';

export interface Ownership {
  /** For each interaction root (span index): its member span indices. */
  members: Map<number, number[]>;
  /** Interaction root → the interaction root it is nested in (another agent), when known. */
  enclosing: Map<number, number>;
  /**
   * Interaction root → what is above it: the indices of its ancestors, ending with the missing
   * parent's `PARENT` value when the chain is cut.
   */
  ancestors: Map<number, Set<number>>;
  /** Interaction roots whose chain of parents is cut by a span that has not arrived. */
  cut: Set<number>;
  /** Spans whose parent is local (or unknown) and has not arrived. */
  orphans: number[];
  /** Spans that belong to no interaction. */
  unowned: number[];
}

/**
 * Where walking up the parents from a span ends: an invocation's index, `ROOT` (a span with no
 * parent, or a remote one), or `CUT` (a parent that has not arrived, and may still arrive).
 */
const ROOT = -1;
const CUT = -2;
const UNKNOWN = -3;

export function resolveOwnership(trace: TraceState): Ownership {
  const spans = trace.spans;
  const count = spanCount(trace);
  const invocations = trace.invocations ?? [];
  const parentOf = (i: number) => spans[i * SPAN_FIELDS + PARENT];
  const isInvocation = (i: number) => spans[i * SPAN_FIELDS + INVOCATION] !== NOT_INVOCATION;
  const identityOf = (i: number) => invocations[spans[i * SPAN_FIELDS + INVOCATION]].agentIdentity;
  // Span → the nearest enclosing invocation or chain end above it (itself excluded), once known.
  const chainEnd = new Array<number>(count).fill(UNKNOWN);
  // Invocation span → the interaction root it belongs to (itself when it starts one), once known.
  const owner = new Array<number>(count).fill(UNKNOWN);
  const identityOfRoot = new Map<number, string | undefined>();

  const endAbove = (start: number): number => {
    const cached = chainEnd[start];
    if (cached !== UNKNOWN) return cached;
    const path: number[] = [];
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

  const rootOfInvocation = (span: number, depth = 0): number => {
    const known = owner[span];
    if (known !== UNKNOWN) return known;
    let root = span;
    const end = endAbove(span);
    if (end >= 0 && depth < 256) {
      const outerRoot = rootOfInvocation(end, depth + 1);
      const own = identityOf(span);
      if (own === undefined || own === identityOfRoot.get(outerRoot)) root = outerRoot;
    }
    if (root === span) identityOfRoot.set(root, identityOf(span));
    owner[span] = root;
    return root;
  };

  const members = new Map<number, number[]>();
  const unowned: number[] = [];
  const orphans: number[] = [];
  for (let span = 0; span < count; span++) {
    let root: number | undefined;
    if (isInvocation(span)) root = rootOfInvocation(span);
    else {
      const end = endAbove(span);
      if (end >= 0) root = rootOfInvocation(end);
    }
    if (root === undefined) unowned.push(span);
    else {
      const list = members.get(root);
      if (list) list.push(span);
      else members.set(root, [span]);
    }
    if (parentOf(span) < NO_PARENT) orphans.push(span);
  }

  const enclosing = new Map<number, number>();
  const ancestors = new Map<number, Set<number>>();
  const cut = new Set<number>();
  for (const root of members.keys()) {
    const end = endAbove(root);
    if (end >= 0) enclosing.set(root, rootOfInvocation(end));
    const above = new Set<number>();
    let current = root;
    // More steps than spans can only be a cycle of parents.
    for (let steps = 0; parentOf(current) !== NO_PARENT && steps <= count; steps++) {
      const parent = parentOf(current);
      above.add(parent);
      if (parent < NO_PARENT) {
        cut.add(root);
        break;
      }
      current = parent;
    }
    ancestors.set(root, above);
  }
  return { members, enclosing, ancestors, cut, orphans, unowned };
}
