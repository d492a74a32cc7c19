/**
 * The conversation writes of the PostgreSQL store, each on the client of a transaction the caller
 * holds: the turns of newly recorded interactions (core/conversation-turns.ts decides what they
 * change), end requests, the closing of due conversations, the intake of closed revisions.
 *
 * Replicas record turns of one conversation at once: the rows are created first (a placeholder,
 * revision 0, when new) and locked in key order, so concurrent transactions wait for each other
 * instead of deadlocking, and each applies its turns to what the other committed. Saving a state
 * clears the conversation's pruned mark (retention): only a turn saves one that is over.
 */
import type pg from 'pg';
import type { ConversationEndReason } from '../../../src/model/records.ts';
import type { ConversationRevisionKey } from '../conversation-store.ts';
import {
  applyTurn,
  closedState,
  conversationKey,
  inStartOrder,
  revisionOf,
  type ConversationState,
  type RevisionRow,
  type TurnRow,
} from '../core/conversation-turns.ts';

export const STATE_COLUMNS =
  'conversation_id, agent_id, revision, open, start_time_ms, last_start_ms, last_interaction_id, last_failed, ' +
  'last_roles, last_activity_ms, turns, end_requested_ms, end_due_ms, end_time_ms, end_reason';

export const REVISION_COLUMNS =
  'seq, conversation_id, agent_id, revision, start_time_ms, end_time_ms, end_reason, turns, last_interaction_id, ' +
  'last_failed, last_roles';

type Row = Record<string, unknown>;

const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** A `conversations` row (STATE_COLUMNS) as a state; undefined for a placeholder (revision 0). */
export function stateOf(row: Row): ConversationState | undefined {
  if (Number(row.revision) === 0) return undefined;
  return {
    conversationId: String(row.conversation_id),
    agentId: String(row.agent_id),
    revision: Number(row.revision),
    open: row.open === true,
    startMs: Number(row.start_time_ms),
    lastStartMs: Number(row.last_start_ms),
    lastInteractionId: String(row.last_interaction_id),
    lastFailed: row.last_failed === true,
    lastRoles: row.last_roles as string[],
    lastActivityMs: Number(row.last_activity_ms),
    turns: Number(row.turns),
    endRequestedMs: nullableNumber(row.end_requested_ms),
    endDueMs: nullableNumber(row.end_due_ms),
    endTimeMs: nullableNumber(row.end_time_ms),
    endReason: (row.end_reason ?? null) as ConversationEndReason | null,
  };
}

/** A `conversation_revisions` row (REVISION_COLUMNS) as a revision row and its seq. */
export function revisionRowOf(row: Row): { seq: number; row: RevisionRow } {
  return {
    seq: Number(row.seq),
    row: {
      conversationId: String(row.conversation_id),
      agentId: String(row.agent_id),
      revision: Number(row.revision),
      startMs: Number(row.start_time_ms),
      endMs: Number(row.end_time_ms),
      endReason: String(row.end_reason) as ConversationEndReason,
      turns: Number(row.turns),
      lastInteractionId: String(row.last_interaction_id),
      lastFailed: row.last_failed === true,
      lastRoles: row.last_roles as string[],
    },
  };
}

const CREATE_PLACEHOLDERS = `
  INSERT INTO conversations (conversation_id, agent_id, revision, open, start_time_ms, last_start_ms,
    last_interaction_id, last_failed, last_roles, last_activity_ms, turns)
  SELECT u.conversation_id, u.agent_id, 0, true, 0, 0, '', false, '[]', 0, 0
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(conversation_id, agent_id, ord)
  ORDER BY u.ord
  ON CONFLICT (conversation_id, agent_id) DO NOTHING`;
const LOCK_STATES = `
  SELECT ${STATE_COLUMNS} FROM conversations c
  WHERE (c.conversation_id, c.agent_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
  ORDER BY c.conversation_id, c.agent_id
  FOR UPDATE`;
const SAVE_STATES = `
  UPDATE conversations c SET revision = u.revision, open = u.open, start_time_ms = u.start_time_ms,
    last_start_ms = u.last_start_ms, last_interaction_id = u.last_interaction_id, last_failed = u.last_failed,
    last_roles = u.last_roles::json, last_activity_ms = u.last_activity_ms, turns = u.turns,
    end_requested_ms = u.end_requested_ms, end_due_ms = u.end_due_ms, end_time_ms = u.end_time_ms,
    end_reason = u.end_reason, pruned_at_ms = NULL
  FROM unnest($1::text[], $2::text[], $3::int[], $4::bool[], $5::bigint[], $6::bigint[], $7::text[], $8::bool[],
    $9::text[], $10::bigint[], $11::int[], $12::bigint[], $13::bigint[], $14::bigint[], $15::text[])
    AS u(conversation_id, agent_id, revision, open, start_time_ms, last_start_ms, last_interaction_id, last_failed,
      last_roles, last_activity_ms, turns, end_requested_ms, end_due_ms, end_time_ms, end_reason)
  WHERE c.conversation_id = u.conversation_id AND c.agent_id = u.agent_id`;
const INSERT_TURNS = `
  INSERT INTO conversation_turns (conversation_id, agent_id, start_time_ms, interaction_id, revision)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::int[])
  ON CONFLICT DO NOTHING`;
const INSERT_REVISIONS = `
  INSERT INTO conversation_revisions (conversation_id, agent_id, revision, start_time_ms, end_time_ms, end_reason,
    turns, last_interaction_id, last_failed, last_roles)
  SELECT u.conversation_id, u.agent_id, u.revision, u.start_time_ms, u.end_time_ms, u.end_reason, u.turns,
    u.last_interaction_id, u.last_failed, u.last_roles::json
  FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::bigint[], $6::text[], $7::int[], $8::text[],
    $9::bool[], $10::text[]) WITH ORDINALITY
    AS u(conversation_id, agent_id, revision, start_time_ms, end_time_ms, end_reason, turns, last_interaction_id,
      last_failed, last_roles, ord)
  ORDER BY u.ord
  ON CONFLICT (conversation_id, agent_id, revision) DO NOTHING
  RETURNING conversation_id, agent_id, revision`;
const TAKE_IN = `
  UPDATE conversation_revisions r SET awaiting_intake = false
  FROM unnest($1::text[], $2::text[], $3::int[]) AS u(conversation_id, agent_id, revision)
  WHERE r.conversation_id = u.conversation_id AND r.agent_id = u.agent_id AND r.revision = u.revision
    AND r.awaiting_intake`;

/** Locks the conversations of `keys` (created as placeholders when new), in key order. */
async function lockStates(
  client: pg.ClientBase,
  keys: Array<{ conversationId: string; agentId: string }>,
  create: boolean,
): Promise<Map<string, ConversationState | undefined>> {
  const unique = [...new Map(keys.map((key) => [conversationKey(key), key])).values()].sort((a, b) =>
    a.conversationId === b.conversationId ? compare(a.agentId, b.agentId) : compare(a.conversationId, b.conversationId),
  );
  const ids = [unique.map((key) => key.conversationId), unique.map((key) => key.agentId)];
  if (create) await client.query(CREATE_PLACEHOLDERS, ids);
  const { rows } = await client.query<Row>(LOCK_STATES, ids);
  return new Map(
    rows.map((row) => [
      conversationKey({ conversationId: String(row.conversation_id), agentId: String(row.agent_id) }),
      stateOf(row),
    ]),
  );
}

async function saveStates(client: pg.ClientBase, states: ConversationState[]): Promise<void> {
  if (states.length === 0) return;
  const column = <T>(read: (state: ConversationState) => T) => states.map(read);
  await client.query(SAVE_STATES, [
    column((s) => s.conversationId),
    column((s) => s.agentId),
    column((s) => s.revision),
    column((s) => s.open),
    column((s) => s.startMs),
    column((s) => s.lastStartMs),
    column((s) => s.lastInteractionId),
    column((s) => s.lastFailed),
    column((s) => JSON.stringify(s.lastRoles)),
    column((s) => s.lastActivityMs),
    column((s) => s.turns),
    column((s) => s.endRequestedMs),
    column((s) => s.endDueMs),
    column((s) => s.endTimeMs),
    column((s) => s.endReason),
  ]);
}

/** Keeps closed revisions (awaiting intake); resolves with those written (a revision is written once). */
async function keepRevisions(client: pg.ClientBase, revisions: RevisionRow[]): Promise<ConversationRevisionKey[]> {
  if (revisions.length === 0) return [];
  const column = <T>(read: (revision: RevisionRow) => T) => revisions.map(read);
  const { rows } = await client.query<{ conversation_id: string; agent_id: string; revision: number }>(
    INSERT_REVISIONS,
    [
      column((r) => r.conversationId),
      column((r) => r.agentId),
      column((r) => r.revision),
      column((r) => r.startMs),
      column((r) => r.endMs),
      column((r) => r.endReason),
      column((r) => r.turns),
      column((r) => r.lastInteractionId),
      column((r) => r.lastFailed),
      column((r) => JSON.stringify(r.lastRoles)),
    ],
  );
  return rows.map((row) => ({ conversationId: row.conversation_id, agentId: row.agent_id, revision: row.revision }));
}

/** Records the turns of newly inserted interactions, in order of start time. */
export async function recordTurns(client: pg.ClientBase, recorded: TurnRow[]): Promise<void> {
  if (recorded.length === 0) return;
  const turns = inStartOrder(recorded);
  let states = await lockStates(client, turns, true);
  // Retention may have pruned a conversation between its placeholder and its lock: create it again.
  if (turns.some((turn) => !states.has(conversationKey(turn)))) states = await lockStates(client, turns, true);
  const closed: RevisionRow[] = [];
  const revisions: number[] = [];
  for (const turn of turns) {
    const applied = applyTurn(states.get(conversationKey(turn)), turn);
    states.set(conversationKey(turn), applied.state);
    revisions.push(applied.revision);
    if (applied.closed) closed.push(applied.closed);
  }
  await keepRevisions(client, closed);
  await saveStates(
    client,
    [...states.values()].filter((state): state is ConversationState => state !== undefined),
  );
  await client.query(INSERT_TURNS, [
    turns.map((turn) => turn.conversationId),
    turns.map((turn) => turn.agentId),
    turns.map((turn) => turn.startMs),
    turns.map((turn) => turn.interactionId),
    revisions,
  ]);
}

/** Requests the end of an open conversation; resolves with its state then, undefined when unknown. */
export async function requestEnd(
  client: pg.ClientBase,
  request: { conversationId: string; agentId: string; atMs: number; dueAtMs: number },
): Promise<ConversationState | undefined> {
  const state = (await lockStates(client, [request], false)).get(conversationKey(request));
  if (!state?.open) return state;
  const next: ConversationState = {
    ...state,
    endRequestedMs: Math.max(state.endRequestedMs ?? request.atMs, request.atMs),
    endDueMs: Math.min(state.endDueMs ?? request.dueAtMs, request.dueAtMs),
    lastActivityMs: Math.max(state.lastActivityMs, request.atMs),
  };
  await saveStates(client, [next]);
  return next;
}

export interface CloseRow extends ConversationRevisionKey {
  turns: number;
  endReason: ConversationEndReason;
  endTimeMs: number;
}

/** Closes the conversations that have not changed since they were found due; resolves with those closed. */
export async function closeDue(client: pg.ClientBase, closes: CloseRow[]): Promise<ConversationRevisionKey[]> {
  if (closes.length === 0) return [];
  const states = await lockStates(client, closes, false);
  const saved: ConversationState[] = [];
  const revisions: RevisionRow[] = [];
  for (const close of closes) {
    const state = states.get(conversationKey(close));
    if (!state?.open || state.revision !== close.revision || state.turns !== close.turns) continue;
    const closedRow = closedState(state, close.endTimeMs, close.endReason);
    states.set(conversationKey(close), closedRow);
    saved.push(closedRow);
    revisions.push(revisionOf(state, close.endTimeMs, close.endReason));
  }
  const kept = await keepRevisions(client, revisions);
  await saveStates(client, saved);
  return kept;
}

/** Marks closed revisions as taken in. */
export async function takeIn(client: pg.ClientBase, keys: readonly ConversationRevisionKey[]): Promise<void> {
  if (keys.length === 0) return;
  await client.query(TAKE_IN, [
    keys.map((key) => key.conversationId),
    keys.map((key) => key.agentId),
    keys.map((key) => key.revision),
  ]);
}

/** Byte order, as the database's "C" collation would not be assumed: any total order works for locking. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
