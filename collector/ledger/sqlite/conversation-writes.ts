/**
 * The conversation writes of the SQLite ledger, applied by `ledger-writer.ts` inside its
 * transaction: a recorded turn (core/conversation-turns.ts decides what it changes), an end
 * request, the closing of due conversations as revisions, and the intake of closed revisions.
 * Rows arrive already checked, so this is SQL only.
 */
import type { DatabaseSync } from 'node:sqlite';
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

/** A due conversation to close, as the writer receives it. */
export interface CloseRow extends ConversationRevisionKey {
  turns: number;
  endReason: ConversationEndReason;
  endTimeMs: number;
}

export type ConversationWriteRequest =
  | { op: 'requestConversationEnd'; conversationId: string; agentId: string; atMs: number; dueAtMs: number }
  | { op: 'closeConversations'; closes: CloseRow[] };

export const STATE_COLUMNS =
  'conversation_id, agent_id, revision, open, start_time_ms, last_start_ms, last_interaction_id, last_failed, ' +
  'last_roles, last_activity_ms, turns, end_requested_ms, end_due_ms, end_time_ms, end_reason';

export const REVISION_COLUMNS =
  'seq, conversation_id, agent_id, revision, start_time_ms, end_time_ms, end_reason, turns, last_interaction_id, ' +
  'last_failed, last_roles';

/** A `conversations` row (STATE_COLUMNS) as a state. */
export function stateOf(row: Record<string, unknown>): ConversationState {
  const nullableNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    conversationId: String(row.conversation_id),
    agentId: String(row.agent_id),
    revision: Number(row.revision),
    open: Number(row.open) === 1,
    startMs: Number(row.start_time_ms),
    lastStartMs: Number(row.last_start_ms),
    lastInteractionId: String(row.last_interaction_id),
    lastFailed: Number(row.last_failed) === 1,
    lastRoles: JSON.parse(String(row.last_roles)) as string[],
    lastActivityMs: Number(row.last_activity_ms),
    turns: Number(row.turns),
    endRequestedMs: nullableNumber(row.end_requested_ms),
    endDueMs: nullableNumber(row.end_due_ms),
    endTimeMs: nullableNumber(row.end_time_ms),
    endReason: (row.end_reason ?? null) as ConversationEndReason | null,
  };
}

/** A `conversation_revisions` row (REVISION_COLUMNS) as a revision row and its seq. */
export function revisionRowOf(row: Record<string, unknown>): { seq: number; row: RevisionRow } {
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
      lastFailed: Number(row.last_failed) === 1,
      lastRoles: JSON.parse(String(row.last_roles)) as string[],
    },
  };
}

export interface ConversationWrites {
  /**
   * Records new turns (their interactions were just inserted), each conversation's in start order:
   * its row read once and written once, however many of its turns the batch holds.
   */
  recordTurns(turns: readonly TurnRow[]): void;
  apply(request: ConversationWriteRequest): unknown;
  /** Marks closed revisions as taken in. */
  takeIn(keys: readonly ConversationRevisionKey[]): void;
}

/**
 * Saving a conversation's state clears its pruned mark (migration 7): only a turn saves a
 * conversation that is over, and a new turn means it is back.
 */
export function createConversationWrites(db: DatabaseSync): ConversationWrites {
  const select = db.prepare(`SELECT ${STATE_COLUMNS} FROM conversations WHERE conversation_id = ? AND agent_id = ?`);
  const upsert = db.prepare(`
    INSERT INTO conversations (${STATE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (conversation_id, agent_id) DO UPDATE SET
      revision = excluded.revision, open = excluded.open, start_time_ms = excluded.start_time_ms,
      last_start_ms = excluded.last_start_ms, last_interaction_id = excluded.last_interaction_id,
      last_failed = excluded.last_failed, last_roles = excluded.last_roles,
      last_activity_ms = excluded.last_activity_ms, turns = excluded.turns,
      end_requested_ms = excluded.end_requested_ms, end_due_ms = excluded.end_due_ms,
      end_time_ms = excluded.end_time_ms, end_reason = excluded.end_reason,
      pruned_at_ms = NULL`);
  const insertTurn = db.prepare(`
    INSERT OR IGNORE INTO conversation_turns (conversation_id, agent_id, start_time_ms, interaction_id, revision)
    VALUES (?, ?, ?, ?, ?)`);
  const insertRevision = db.prepare(`
    INSERT OR IGNORE INTO conversation_revisions (conversation_id, agent_id, revision, start_time_ms, end_time_ms,
      end_reason, turns, last_interaction_id, last_failed, last_roles) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const takeIn = db.prepare(
    'UPDATE conversation_revisions SET awaiting_intake = 0 WHERE conversation_id = ? AND agent_id = ? AND revision = ?',
  );

  const current = (conversationId: string, agentId: string): ConversationState | undefined => {
    const row = select.get(conversationId, agentId) as Record<string, unknown> | undefined;
    return row ? stateOf(row) : undefined;
  };

  function save(state: ConversationState): void {
    upsert.run(
      state.conversationId,
      state.agentId,
      state.revision,
      state.open ? 1 : 0,
      state.startMs,
      state.lastStartMs,
      state.lastInteractionId,
      state.lastFailed ? 1 : 0,
      JSON.stringify(state.lastRoles),
      state.lastActivityMs,
      state.turns,
      state.endRequestedMs,
      state.endDueMs,
      state.endTimeMs,
      state.endReason,
    );
  }

  function keep(revision: RevisionRow): boolean {
    const result = insertRevision.run(
      revision.conversationId,
      revision.agentId,
      revision.revision,
      revision.startMs,
      revision.endMs,
      revision.endReason,
      revision.turns,
      revision.lastInteractionId,
      revision.lastFailed ? 1 : 0,
      JSON.stringify(revision.lastRoles),
    );
    return Number(result.changes) === 1;
  }

  return {
    recordTurns(turns) {
      const states = new Map<string, ConversationState>();
      for (const turn of inStartOrder(turns)) {
        const key = conversationKey(turn);
        const applied = applyTurn(states.get(key) ?? current(turn.conversationId, turn.agentId), turn);
        if (applied.closed) keep(applied.closed);
        insertTurn.run(turn.conversationId, turn.agentId, turn.startMs, turn.interactionId, applied.revision);
        states.set(key, applied.state);
      }
      for (const state of states.values()) save(state);
    },

    apply(request) {
      switch (request.op) {
        case 'requestConversationEnd': {
          const state = current(request.conversationId, request.agentId);
          if (!state) return null;
          if (!state.open) return state;
          const next: ConversationState = {
            ...state,
            endRequestedMs: Math.max(state.endRequestedMs ?? request.atMs, request.atMs),
            endDueMs: Math.min(state.endDueMs ?? request.dueAtMs, request.dueAtMs),
            lastActivityMs: Math.max(state.lastActivityMs, request.atMs),
          };
          save(next);
          return next;
        }
        case 'closeConversations': {
          const closed: ConversationRevisionKey[] = [];
          for (const close of request.closes) {
            const state = current(close.conversationId, close.agentId);
            // Changed since it was found due (a turn, another close): left as it is.
            if (!state?.open || state.revision !== close.revision || state.turns !== close.turns) continue;
            save(closedState(state, close.endTimeMs, close.endReason));
            if (keep(revisionOf(state, close.endTimeMs, close.endReason))) {
              closed.push({ conversationId: close.conversationId, agentId: close.agentId, revision: close.revision });
            }
          }
          return closed;
        }
      }
    },

    takeIn(keys) {
      for (const key of keys) takeIn.run(key.conversationId, key.agentId, key.revision);
    },
  };
}
