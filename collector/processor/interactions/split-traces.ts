/**
 * Traces split across replicas. Replicas sharing a ledger must each receive whole traces (spans
 * routed by trace id, docs/scale-out.md); when the routing changes while a trace is in flight (a
 * replica added or removed), its spans can reach two replicas. Each replica decides its part, so
 * this is found when traces are decided, with one store query per batch of decided traces
 * (`ReplicaStore.tracesElsewhere`; a store without it, SQLite, skips all of this):
 *
 * - another replica still holds unreleased spans of the trace: reported;
 * - another replica already recorded interactions of the trace: reported, and the spans this
 *   replica could not place in an interaction of its own are kept as late spans of those
 *   interactions (rather than dropped as belonging to none).
 *
 * Reports are a counter (`evalon.traces.split`) and a warning line naming the trace and the
 * replicas, at most one per `LOG_INTERVAL_MS` (with how many were not logged).
 */
import type { SpanData } from '../../model/span.ts';
import type { ReplicaStore, TraceElsewhere, TracesElsewhere } from '../../ledger/replica-store.ts';
import type { LateSpan } from '../../ledger/span-store.ts';
import type { Logger } from '../../logger.ts';

export const LOG_INTERVAL_MS = 10_000;

export interface SplitTraces {
  /** What other replicas hold of `traceIds`; undefined when the store cannot tell (or the query failed: logged). */
  find(traceIds: string[]): Promise<TracesElsewhere | undefined>;
  /**
   * The spans of a trace that belonged to no interaction here, as late spans of the interactions
   * another replica recorded: of the nearest recorded ancestor when their parents show it, else
   * of the first interaction recorded.
   */
  keepAsLate(
    traceId: string,
    spanIds: readonly string[],
    spans: ReadonlyMap<string, SpanData>,
    elsewhere: TraceElsewhere,
  ): LateSpan[];
  /** Counts and logs the split traces found; `kept` is the late spans kept per trace. */
  report(found: TracesElsewhere, kept: ReadonlyMap<string, LateSpan[]>): void;
  /** Split traces found so far. */
  readonly count: number;
}

export function createSplitTraces(options: { store: ReplicaStore; logger: Logger; clock: () => number }): SplitTraces {
  const { store, logger, clock } = options;
  let count = 0;
  let lastLog = -Infinity;
  let unlogged = 0;
  let lastFailureLog = -Infinity;

  return {
    get count() {
      return count;
    },

    async find(traceIds) {
      if (!store.tracesElsewhere || traceIds.length === 0) return undefined;
      try {
        return await store.tracesElsewhere(traceIds);
      } catch (error) {
        // Detection is a report, not a condition for recording: the decided traces go on.
        const now = clock();
        if (now - lastFailureLog >= LOG_INTERVAL_MS) {
          lastFailureLog = now;
          logger.warn(
            `interactions: could not check ${traceIds.length} decided ` +
              `traces for spans on other replicas: ${String(error)}`,
          );
        }
        return undefined;
      }
    },

    keepAsLate(traceId, spanIds, spans, elsewhere) {
      if (elsewhere.recorded.length === 0) return [];
      const prefix = `${traceId}-`;
      const byRoot = new Map<string, string>();
      for (const { interactionId } of elsewhere.recorded) {
        if (interactionId.startsWith(prefix)) byRoot.set(interactionId.slice(prefix.length), interactionId);
      }
      const first = elsewhere.recorded[0].interactionId;
      const late: LateSpan[] = [];
      for (const spanId of spanIds) {
        const span = spans.get(spanId);
        if (span) late.push({ span, interactionId: recordedAncestor(span, spans, byRoot) ?? first });
      }
      return late;
    },

    report(found, kept) {
      for (const [traceId, elsewhere] of found.traces) {
        count += 1;
        const now = clock();
        if (now - lastLog < LOG_INTERVAL_MS) {
          unlogged += 1;
          continue;
        }
        lastLog = now;
        const parts: string[] = [];
        if (elsewhere.pendingOn.length > 0) parts.push(`spans pending on ${names(elsewhere.pendingOn)}`);
        if (elsewhere.recorded.length > 0) {
          const recorders = [...new Set(elsewhere.recorded.map((r) => r.replicaId))];
          const late = kept.get(traceId) ?? [];
          const keptText =
            late.length > 0
              ? `; ${late.length} spans received here kept as late spans of ` +
                `${[...new Set(late.map((l) => l.interactionId))].join(', ')}`
              : '';
          parts.push(`interactions recorded by ${names(recorders)}${keptText}`);
        }
        const more = unlogged > 0 ? `; ${unlogged} more split traces since the last report` : '';
        unlogged = 0;
        logger.warn(
          `interactions: trace ${traceId} was split across replicas: this one ("${found.replicaId}") and ` +
            `${parts.join(', ')} ` +
            `(${count} split traces so far${more}; route spans to replicas by trace id, see docs/scale-out.md)`,
        );
      }
    },
  };
}

function recordedAncestor(
  span: SpanData,
  spans: ReadonlyMap<string, SpanData>,
  byRoot: ReadonlyMap<string, string>,
): string | undefined {
  const seen = new Set<string>();
  let current: SpanData | undefined = span;
  while (current) {
    const own = byRoot.get(current.spanId);
    if (own) return own;
    const parent: string | undefined = current.parentSpanId;
    if (!parent || seen.has(parent)) return undefined;
    seen.add(parent);
    const hit = byRoot.get(parent);
    if (hit) return hit;
    current = spans.get(parent);
  }
  return undefined;
}

function names(replicas: string[]): string {
  return replicas.map((r) => `"${r}"`).join(', ');
}
