/**
 * The skeleton of one pending trace: enough of each span to decide which interaction it belongs
 * to and when that interaction is complete. The spans' content stays in the ledger store until
 * the interaction is built, so pending memory is a few hundred bytes a span.
 */
import type { Invocation } from './classify.ts';

export interface SpanNode {
  spanId: string;
  /**
   * The parent's id when the parent is in this process (or may be). A parent the span's flags
   * mark as remote is left out: like a root, the chain of parents ends there.
   */
  parentSpanId?: string;
  invocation?: Invocation;
  /** When the collector received the span: ms since the assembler's first span (see the assembler). */
  arrivedAt: number;
}

export interface TraceState {
  traceId: string;
  nodes: Map<string, SpanNode>;
  firstArrival: number;
  lastArrival: number;
  /**
   * Span ids of every span that belonged to a completed interaction (its root included), and to
   * which one; created with the first completion.
   */
  completedMembers?: Map<string, string>;
  /**
   * Invocation spans of the trace that name a conversation and whose interaction is not decided
   * yet: the assembler counts them as that conversation's pending turns.
   */
  conversationNodes?: Set<string>;
  /** When this trace is next due for a check (ms), or undefined when not scheduled. */
  dueAt?: number;
  /** The timer bucket holding this trace's next check. */
  dueBucket?: number;
}

/** Where walking up the parents from a span ends. */
export type ChainEnd =
  /** A span with no parent, or whose parent is remote. */
  | { kind: 'root' }
  /** An invocation span: the nearest enclosing one. */
  | { kind: 'invocation'; spanId: string }
  /** A parent that has not arrived (and may still arrive). */
  | { kind: 'missing'; topSpanId: string };

export interface Ownership {
  /** For each interaction root (span id): its member span ids. */
  members: Map<string, string[]>;
  /** Interaction root → the interaction root it is nested in (another agent), when known. */
  enclosing: Map<string, string>;
  /** Interaction root → the span ids above it, ending with the missing parent id when the chain is cut. */
  ancestors: Map<string, Set<string>>;
  /** Interaction roots whose chain of parents is cut by a span that has not arrived. */
  cut: Set<string>;
  /** Spans whose parent is local (or unknown) and has not arrived. */
  orphans: SpanNode[];
  /** Span ids that belong to no interaction. */
  unowned: string[];
}

/**
 * Resolves which interaction every span of the trace belongs to, with the merge rule
 * (docs/interactions.md, "Which interaction a span belongs to"): an invocation nested in another
 * whose agent identity is absent or the same belongs to the enclosing interaction; a different
 * identity starts an interaction of its own.
 */
export function resolveOwnership(trace: TraceState): Ownership {
  const { nodes } = trace;
  // span id → interaction root span id, for invocation spans.
  const owner = new Map<string, string>();
  const chainEnd = new Map<string, ChainEnd>();
  const identityOfRoot = new Map<string, string | undefined>();

  // The nearest enclosing invocation span (or the chain's end) above `node`, excluding itself.
  const endAbove = (node: SpanNode): ChainEnd => {
    const cached = chainEnd.get(node.spanId);
    if (cached) return cached;
    const path: SpanNode[] = [];
    let current = node;
    let end: ChainEnd;
    for (;;) {
      if (current.parentSpanId === undefined) {
        end = { kind: 'root' };
        break;
      }
      const parent = nodes.get(current.parentSpanId);
      if (!parent) {
        end = { kind: 'missing', topSpanId: current.spanId };
        break;
      }
      if (parent.invocation) {
        end = { kind: 'invocation', spanId: parent.spanId };
        break;
      }
      const known = chainEnd.get(parent.spanId);
      if (known) {
        end = known;
        break;
      }
      path.push(parent);
      current = parent;
    }
    chainEnd.set(node.spanId, end);
    for (const step of path) chainEnd.set(step.spanId, end);
    return end;
  };

  // The interaction root that an invocation span belongs to (itself when it starts one).
  const rootOfInvocation = (node: SpanNode, depth = 0): string => {
    const known = owner.get(node.spanId);
    if (known !== undefined) return known;
    let root = node.spanId;
    const end = endAbove(node);
    if (end.kind === 'invocation' && depth < 256) {
      const outerRoot = rootOfInvocation(nodes.get(end.spanId)!, depth + 1);
      const own = node.invocation!.agentIdentity;
      if (own === undefined || own === identityOfRoot.get(outerRoot)) root = outerRoot;
    }
    if (root === node.spanId) identityOfRoot.set(root, node.invocation!.agentIdentity);
    owner.set(node.spanId, root);
    return root;
  };

  const members = new Map<string, string[]>();
  const unowned: string[] = [];
  const orphans: SpanNode[] = [];
  for (const node of nodes.values()) {
    let root: string | undefined;
    if (node.invocation) root = rootOfInvocation(node);
    else {
      const end = endAbove(node);
      if (end.kind === 'invocation') root = rootOfInvocation(nodes.get(end.spanId)!);
    }
    if (root === undefined) unowned.push(node.spanId);
    else {
      let list = members.get(root);
      if (!list) {
        list = [];
        members.set(root, list);
      }
      list.push(node.spanId);
    }
    if (node.parentSpanId !== undefined && !nodes.has(node.parentSpanId)) orphans.push(node);
  }

  const enclosing = new Map<string, string>();
  const ancestors = new Map<string, Set<string>>();
  const cut = new Set<string>();
  for (const root of members.keys()) {
    const end = endAbove(nodes.get(root)!);
    if (end.kind === 'invocation') enclosing.set(root, rootOfInvocation(nodes.get(end.spanId)!));
    const above = new Set<string>();
    let current = nodes.get(root)!;
    for (let guard = 0; current.parentSpanId !== undefined && guard < 10_000; guard++) {
      above.add(current.parentSpanId);
      const parent = nodes.get(current.parentSpanId);
      if (!parent) {
        cut.add(root);
        break;
      }
      current = parent;
    }
    ancestors.set(root, above);
  }
  return { members, enclosing, ancestors, cut, orphans, unowned };
}
