/**
 * `pruneUnits` on PostgreSQL: one transaction that locks the units' rows, decides which are in use
 * (ledger-retention.ts has the rules) and removes the others, set-based (a few statements per
 * batch, not per unit). With `dryRun` the same reads run without locks, and nothing is removed.
 *
 * Races with other replicas' writes: the conversations' rows are locked first (a turn that would
 * reopen one waits, and finds it gone or pruned: conversation-writes.ts creates it again); the
 * interactions' rows next. Whether a revision awaits intake and whether its evaluation is queued
 * are read in one statement, and so are an interaction's intake flag and its queued evaluations:
 * an intake, which changes both in one transaction, is seen whole or not at all.
 */
import type pg from 'pg';
import { conversationEvaluationKeys } from '../core/prune-units.ts';
import {
  emptyTally,
  type PruneOptions,
  type PruneResult,
  type PruneTally,
  type PruneUnit,
} from '../ledger-retention.ts';

/** An interaction, its trace, or another of its trace, is in use (`i` is the interaction). */
const TRACE_IN_USE = `
  EXISTS (SELECT 1 FROM pending_spans p WHERE p.trace_id = i.trace_id)
  OR EXISTS (SELECT 1 FROM interactions j WHERE j.trace_id = i.trace_id AND (
    EXISTS (SELECT 1 FROM interaction_intake k WHERE k.interaction_id = j.interaction_id)
    OR EXISTS (SELECT 1 FROM evaluation_queue q WHERE q.interaction_id = j.interaction_id)))`;
const INTERACTION_COLUMNS = `i.interaction_id, i.trace_id, i.agent_id, i.end_time_ms,
  coalesce(pg_column_size(i.record_deflated), pg_column_size(i.record)) AS bytes`;

const lockConversations = (lock: boolean) => `
  SELECT conversation_id, agent_id, revision, open, pruned_at_ms FROM conversations
  WHERE (conversation_id, agent_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
  ORDER BY conversation_id, agent_id ${lock ? 'FOR UPDATE' : ''}`;
const conversationsInUse = `
  SELECT u.ord::int AS ord,
    EXISTS (SELECT 1 FROM conversation_revisions r
      WHERE r.conversation_id = u.conversation_id AND r.agent_id = u.agent_id AND r.awaiting_intake)
    OR EXISTS (SELECT 1 FROM unnest($3::text[], $4::int[]) AS k(key, owner)
      JOIN evaluation_queue q ON q.interaction_id = k.key WHERE k.owner = u.ord) AS in_use
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(conversation_id, agent_id, ord)`;
const turnsOf = (lock: boolean) => `
  SELECT t.conversation_id, t.agent_id AS conversation_agent, ${INTERACTION_COLUMNS}, (${TRACE_IN_USE}) AS in_use
  FROM conversation_turns t JOIN interactions i ON i.interaction_id = t.interaction_id
  WHERE (t.conversation_id, t.agent_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
  ${lock ? 'FOR UPDATE OF i' : ''}`;
const standalone = (lock: boolean) => `
  SELECT ${INTERACTION_COLUMNS}, (
    EXISTS (SELECT 1 FROM conversation_turns t WHERE t.interaction_id = i.interaction_id)
    OR EXISTS (SELECT 1 FROM interactions j JOIN conversation_turns t ON t.interaction_id = j.interaction_id
      WHERE j.trace_id = i.trace_id)
    OR ${TRACE_IN_USE}) AS in_use
  FROM interactions i WHERE i.interaction_id = ANY($1::text[]) ${lock ? 'FOR UPDATE OF i' : ''}`;
const LATE_OF = `
  SELECT interaction_id, count(*) AS n, coalesce(sum(pg_column_size(span)), 0) AS bytes
  FROM late_spans WHERE interaction_id = ANY($1::text[]) GROUP BY interaction_id`;
const EVALUATIONS_OF = `
  SELECT interaction_id, count(*) AS n, coalesce(sum(pg_column_size(record)), 0) AS bytes
  FROM evaluations WHERE interaction_id = ANY($1::text[]) GROUP BY interaction_id`;
/** The review queue's rows of the units' subjects: an interaction's (no conversation), a conversation's. */
const REVIEWS_OF = `
  SELECT CASE WHEN conversation_id IS NULL THEN interaction_id END AS interaction_id, conversation_id,
    CASE WHEN conversation_id IS NOT NULL THEN agent_id END AS agent_id, count(*) AS n,
    coalesce(sum(pg_column_size(review) + coalesce(pg_column_size(record), 0)), 0) AS bytes
  FROM reviews
  WHERE (conversation_id IS NULL AND interaction_id = ANY($1::text[]))
    OR (conversation_id, agent_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))
  GROUP BY 1, 2, 3`;
const DELETE_REVIEWS = `
  DELETE FROM reviews
  WHERE (conversation_id IS NULL AND interaction_id = ANY($1::text[]))
    OR (conversation_id, agent_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`;
const INSERT_TOMBSTONES = `
  INSERT INTO pruned_interactions (interaction_id, trace_id, agent_id, end_time_ms, pruned_at_ms)
  SELECT interaction_id, trace_id, agent_id, end_time_ms, $2 FROM interactions WHERE interaction_id = ANY($1::text[])
  ON CONFLICT (interaction_id) DO UPDATE SET pruned_at_ms = excluded.pruned_at_ms`;
const BY_CONVERSATION = '(conversation_id, agent_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))';

type Row = Record<string, unknown>;
type Counted = Map<string, { count: number; bytes: number }>;

interface Doomed {
  interactionId: string;
  bytes: number;
}

export async function pruneUnitsInTransaction(
  client: pg.ClientBase,
  units: PruneUnit[],
  options: PruneOptions & { atMs: number; flushStatistics: boolean },
): Promise<PruneResult> {
  const lock = options.dryRun !== true;
  const result: PruneResult = { pruned: [], kept: [], deferred: [], tally: emptyTally() };
  const interactionUnits = units.filter((unit) => unit.kind === 'interaction');
  const conversationUnits = units.filter((unit) => unit.kind === 'conversation');
  const doomed = new Map<PruneUnit, Doomed[]>();

  // Conversations first: their rows locked, then whether each is over and not in use.
  const pairs = [conversationUnits.map((u) => u.conversationId), conversationUnits.map((u) => u.agentId)];
  const states = new Map<string, Row>();
  if (conversationUnits.length > 0) {
    for (const row of (await client.query<Row>(lockConversations(lock), pairs)).rows)
      states.set(`${row.conversation_id}\u0000${row.agent_id}`, row);
  }
  const keysOf = new Map<PruneUnit, string[]>();
  const candidates: Array<Extract<PruneUnit, { kind: 'conversation' }>> = [];
  for (const unit of conversationUnits) {
    const state = states.get(`${unit.conversationId}\u0000${unit.agentId}`);
    if (!state || Number(state.revision) === 0 || state.pruned_at_ms !== null) continue; // gone
    if (state.open === true) result.kept.push(unit);
    else {
      candidates.push(unit);
      keysOf.set(unit, conversationEvaluationKeys(unit.conversationId, unit.agentId, Number(state.revision)));
    }
  }
  if (candidates.length > 0) {
    const keys = candidates.flatMap((unit) => keysOf.get(unit)!);
    const owners = candidates.flatMap((unit, index) => keysOf.get(unit)!.map(() => index + 1));
    const ids = [candidates.map((u) => u.conversationId), candidates.map((u) => u.agentId)];
    const inUse = (await client.query<{ ord: number; in_use: boolean }>(conversationsInUse, [...ids, keys, owners]))
      .rows;
    const turns = (await client.query<Row>(turnsOf(lock), ids)).rows;
    for (const [index, unit] of candidates.entries()) {
      const own = turns.filter(
        (t) => t.conversation_id === unit.conversationId && t.conversation_agent === unit.agentId,
      );
      if (inUse.find((row) => row.ord === index + 1)?.in_use || own.some((t) => t.in_use === true)) {
        result.kept.push(unit);
        continue;
      }
      doomed.set(unit, own.map(doomedOf));
    }
  }
  if (interactionUnits.length > 0) {
    const rows = (await client.query<Row>(standalone(lock), [interactionUnits.map((u) => u.interactionId)])).rows;
    const byId = new Map(rows.map((row) => [String(row.interaction_id), row]));
    for (const unit of interactionUnits) {
      const row = byId.get(unit.interactionId);
      if (!row) continue; // gone
      if (row.in_use === true) result.kept.push(unit);
      else doomed.set(unit, [doomedOf(row)]);
    }
  }

  const interactionIds = [...doomed.values()].flat().map((d) => d.interactionId);
  const conversationKeys = [...doomed.keys()].flatMap((unit) => keysOf.get(unit) ?? []);
  const late = await counted(client, LATE_OF, interactionIds);
  const evaluations = await counted(client, EVALUATIONS_OF, [...interactionIds, ...conversationKeys]);
  const doomedConversations = [...doomed.keys()].filter((unit) => unit.kind === 'conversation');
  const doomedPairs = [doomedConversations.map((u) => u.conversationId), doomedConversations.map((u) => u.agentId)];
  const reviews = new Map<string, { count: number; bytes: number }>();
  if (doomed.size > 0)
    for (const row of (await client.query<Row>(REVIEWS_OF, [interactionIds, ...doomedPairs])).rows)
      reviews.set(
        row.conversation_id === null ? String(row.interaction_id) : `${row.conversation_id}\u0000${row.agent_id}`,
        { count: Number(row.n), bytes: Number(row.bytes) },
      );
  const reviewsOf = (unit: PruneUnit, interactionId?: string) =>
    reviews.get(interactionId ?? (unit.kind === 'conversation' ? `${unit.conversationId}\u0000${unit.agentId}` : ''));
  const keep = options.keepEvaluations;
  const keptConversations: PruneUnit[] = [];
  for (const [unit, interactions] of doomed) {
    result.pruned.push(unit);
    addUnit(result.tally, unit, interactions, late, evaluations, keep ? [] : (keysOf.get(unit) ?? []), keep);
    if (!keep) {
      for (const found of [reviewsOf(unit), ...interactions.map((i) => reviewsOf(unit, i.interactionId))]) {
        result.tally.reviews.count += found?.count ?? 0;
        result.tally.reviews.bytes += found?.bytes ?? 0;
      }
    }
    const evaluated = (keysOf.get(unit) ?? []).some((key) => evaluations.has(key)) || reviewsOf(unit) !== undefined;
    if (keep && evaluated) keptConversations.push(unit);
  }
  if (lock && doomed.size > 0) {
    const evaluated = interactionIds.filter((id) => evaluations.has(id) || reviews.has(id));
    if (keep) await client.query(INSERT_TOMBSTONES, [evaluated, options.atMs]);
    else {
      await client.query('DELETE FROM evaluations WHERE interaction_id = ANY($1::text[])', [
        [...interactionIds, ...conversationKeys],
      ]);
      await client.query(DELETE_REVIEWS, [interactionIds, ...doomedPairs]);
    }
    await client.query('DELETE FROM late_spans WHERE interaction_id = ANY($1::text[])', [interactionIds]);
    await client.query('DELETE FROM interactions WHERE interaction_id = ANY($1::text[])', [interactionIds]);
    await removeConversations(client, [...doomed.keys()], keptConversations, options.atMs);
    // The statistics `measureLedgerSize` reads count these deletes once this transaction commits.
    if (options.flushStatistics) await client.query('SELECT pg_stat_force_next_flush()');
  }
  return result;
}

function doomedOf(row: Row): Doomed {
  return { interactionId: String(row.interaction_id), bytes: Number(row.bytes) };
}

async function counted(client: pg.ClientBase, sql: string, ids: string[]): Promise<Counted> {
  const found: Counted = new Map();
  if (ids.length === 0) return found;
  for (const row of (await client.query<Row>(sql, [ids])).rows)
    found.set(String(row.interaction_id), { count: Number(row.n), bytes: Number(row.bytes) });
  return found;
}

function addUnit(
  tally: PruneTally,
  unit: PruneUnit,
  interactions: Doomed[],
  late: Counted,
  evaluations: Counted,
  conversationKeys: string[],
  keep: boolean,
): void {
  const add = (kind: keyof PruneTally, found: { count: number; bytes: number } | undefined) => {
    tally[kind].count += found?.count ?? 0;
    tally[kind].bytes += found?.bytes ?? 0;
  };
  if (unit.kind === 'conversation') tally.conversations.count += 1;
  for (const interaction of interactions) {
    add('interactions', { count: 1, bytes: interaction.bytes });
    add('late_spans', late.get(interaction.interactionId));
    if (!keep) add('evaluations', evaluations.get(interaction.interactionId));
  }
  for (const key of conversationKeys) add('evaluations', evaluations.get(key));
}

/** Pruned conversations: turns and revisions go; the row stays, marked, when its evaluations are kept. */
async function removeConversations(
  client: pg.ClientBase,
  pruned: PruneUnit[],
  kept: PruneUnit[],
  atMs: number,
): Promise<void> {
  const conversations = pruned.filter((unit) => unit.kind === 'conversation');
  if (conversations.length === 0) return;
  const pairs = (list: PruneUnit[]) => {
    const units = list.filter((unit) => unit.kind === 'conversation');
    return [units.map((u) => u.conversationId), units.map((u) => u.agentId)];
  };
  await client.query(`DELETE FROM conversation_turns WHERE ${BY_CONVERSATION}`, pairs(conversations));
  await client.query(`DELETE FROM conversation_revisions WHERE ${BY_CONVERSATION}`, pairs(conversations));
  const keptSet = new Set(kept);
  const deleted = conversations.filter((unit) => !keptSet.has(unit));
  if (deleted.length > 0) await client.query(`DELETE FROM conversations WHERE ${BY_CONVERSATION}`, pairs(deleted));
  if (kept.length > 0)
    await client.query(`UPDATE conversations SET pruned_at_ms = $3 WHERE ${BY_CONVERSATION}`, [...pairs(kept), atMs]);
}
