/**
 * `tracesElsewhere`: what other replicas hold of some traces, in one query per call (the
 * interactions processor calls it once per batch of decided traces). Both halves go through
 * indexes on `trace_id` (`pending_spans_by_trace`, `interactions_by_trace`).
 */
import type pg from 'pg';
import type { TraceElsewhere, TracesElsewhere } from '../store.ts';

// Nothing is probed while no other replica has ever claimed an id on this ledger (an InitPlan the
// server runs once, then skips both halves): a collector replica claims its id as it starts (it
// replays its pending spans first), before it writes a pending span or records an interaction, so
// what another replica wrote comes with its `replicas` row.
// One index probe per trace id (LATERAL; OFFSET 0 keeps the planner from turning it back into a
// join), whatever the tables' statistics: with `trace_id = ANY(...)`, or a join, on a young
// ledger not analyzed yet the planner scanned the whole interactions table every tick (53 ms at
// 50,000 interactions, and growing with the table).
export const ELSEWHERE_SQL = `
  WITH ids AS (SELECT DISTINCT trace_id FROM unnest($1::text[]) AS t(trace_id))
  SELECT p.trace_id, p.replica_id AS replica, NULL::text AS interaction_id, NULL::bigint AS seq
  FROM ids, LATERAL (SELECT DISTINCT trace_id, replica_id FROM pending_spans
    WHERE trace_id = ids.trace_id AND replica_id <> $2) AS p
  WHERE EXISTS (SELECT 1 FROM replicas WHERE replica_id <> $2)
  UNION ALL
  SELECT i.trace_id, i.recorded_by, i.interaction_id, i.seq
  FROM ids, LATERAL (SELECT trace_id, recorded_by, interaction_id, seq FROM interactions
    WHERE trace_id = ids.trace_id AND recorded_by <> $2 OFFSET 0) AS i
  WHERE EXISTS (SELECT 1 FROM replicas WHERE replica_id <> $2)`;

export async function queryTracesElsewhere(
  pool: pg.Pool,
  replicaId: string,
  traceIds: string[],
): Promise<TracesElsewhere> {
  const traces = new Map<string, TraceElsewhere>();
  if (traceIds.length === 0) return { replicaId, traces };
  const { rows } = await pool.query<{
    trace_id: string;
    replica: string;
    interaction_id: string | null;
    seq: string | null;
  }>(ELSEWHERE_SQL, [traceIds, replicaId]);
  rows.sort((a, b) => Number(a.seq ?? 0) - Number(b.seq ?? 0));
  for (const row of rows) {
    let entry = traces.get(row.trace_id);
    if (!entry) {
      entry = { pendingOn: [], recorded: [] };
      traces.set(row.trace_id, entry);
    }
    if (row.interaction_id === null) entry.pendingOn.push(row.replica);
    else entry.recorded.push({ interactionId: row.interaction_id, replicaId: row.replica });
  }
  for (const entry of traces.values()) entry.pendingOn.sort();
  return { replicaId, traces };
}
