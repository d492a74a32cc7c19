/**
 * The conversation role of the SQLite store: reads on the store's reader connection (indexed:
 * the due queries read only what is due), writes through the store's writer
 * (`conversation-writes.ts`). Turns are recorded by `putInteractions` itself.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { EvaluationRecord, InteractionRecord } from '../../../src/model/records.ts';
import {
  normalizeConversationQuery,
  normalizeRevisionCountQuery,
  normalizeRevisionPageQuery,
} from '../conversation-query.ts';
import type {
  ConversationRevision,
  ConversationRevisionKey,
  ConversationStore,
  DueConversation,
} from '../conversation-store.ts';
import type { ConversationState } from '../core/conversation-turns.ts';
import { conversationAtRevision, conversationRecordOf, inOrder, revisionOfRow } from '../core/conversation-records.ts';
import { conversationSubjectKey, isoMs, requireText } from '../core/rows.ts';
import { LedgerQueryError } from '../errors.ts';
import { parseIsoTime } from '../interaction-query.ts';
import { REVISION_COLUMNS, STATE_COLUMNS, revisionRowOf, stateOf, type CloseRow } from './conversation-writes.ts';
import type { WriterClient } from './writer-client.ts';

type Row = Record<string, unknown>;

export function createConversationStoreMethods(
  db: DatabaseSync,
  path: string,
  writer: WriterClient,
  ensureOpen: () => void,
): ConversationStore {
  const selectState = db.prepare(
    `SELECT ${STATE_COLUMNS} FROM conversations WHERE conversation_id = ? AND agent_id = ?`,
  );
  const selectAgents = db.prepare('SELECT agent_id FROM conversations WHERE conversation_id = ? ORDER BY agent_id');
  const selectTurnIds = db.prepare(`
    SELECT interaction_id FROM conversation_turns WHERE conversation_id = ? AND agent_id = ? AND revision <= ?
    ORDER BY start_time_ms, interaction_id`);
  const selectRecords = db.prepare(`
    SELECT i.record FROM conversation_turns t JOIN interactions i ON i.interaction_id = t.interaction_id
    WHERE t.conversation_id = ? AND t.agent_id = ? AND t.revision <= ? ORDER BY t.start_time_ms, t.interaction_id`);
  const selectRevision = db.prepare(
    `SELECT ${REVISION_COLUMNS} FROM conversation_revisions ` +
      'WHERE conversation_id = ? AND agent_id = ? AND revision = ?',
  );
  const selectRevisions = db.prepare(
    `SELECT ${REVISION_COLUMNS} FROM conversation_revisions ` +
      'WHERE conversation_id = ? AND agent_id = ? ORDER BY revision',
  );
  const selectAwaiting = db.prepare(
    `SELECT ${REVISION_COLUMNS} FROM conversation_revisions WHERE awaiting_intake = 1 ORDER BY seq LIMIT ?`,
  );
  const selectEndDue = db.prepare(`
    SELECT conversation_id, agent_id, revision, turns, end_requested_ms FROM conversations
    WHERE open = 1 AND end_due_ms IS NOT NULL AND end_due_ms <= ? ORDER BY end_due_ms LIMIT ?`);
  const selectIdle = db.prepare(`
    SELECT conversation_id, agent_id, revision, turns, last_activity_ms FROM conversations
    WHERE open = 1 AND last_activity_ms <= ? AND end_requested_ms IS NULL ORDER BY last_activity_ms LIMIT ?`);
  const selectEvaluations = db.prepare(
    'SELECT record FROM evaluations WHERE interaction_id IN (SELECT value FROM json_each(?)) ' +
      'ORDER BY completed_at_ms, id',
  );
  const statements = new Map<string, StatementSync>();

  /** One prepared statement per combination of filters, made on first use. */
  function filtered(key: string, make: () => string): StatementSync {
    let statement = statements.get(key);
    if (!statement) {
      statement = db.prepare(make());
      statements.set(key, statement);
    }
    return statement;
  }

  const turnIds = (conversationId: string, agentId: string, upTo: number) =>
    (selectTurnIds.all(conversationId, agentId, upTo) as { interaction_id: string }[]).map((row) => row.interaction_id);

  function revisionOf(row: Row): ConversationRevision {
    const { seq, row: revision } = revisionRowOf(row);
    return revisionOfRow(revision, seq, turnIds(revision.conversationId, revision.agentId, revision.revision));
  }

  return {
    async getConversation(conversationId, agentId, options = {}) {
      ensureOpen();
      if (options.revision !== undefined) {
        const row = selectRevision.get(conversationId, agentId, options.revision) as Row | undefined;
        if (!row) return undefined;
        const revision = revisionOf(row);
        const records = (selectRecords.all(conversationId, agentId, revision.revision) as { record: string }[]).map(
          (r) => JSON.parse(r.record) as InteractionRecord,
        );
        return conversationAtRevision(revision, inOrder(revision.interactionIds, records));
      }
      const row = selectState.get(conversationId, agentId) as Row | undefined;
      if (!row) return undefined;
      const state = stateOf(row);
      const interactions = (selectRecords.all(conversationId, agentId, state.revision) as { record: string }[]).map(
        (r) => JSON.parse(r.record) as InteractionRecord,
      );
      return {
        ...conversationRecordOf(
          state,
          interactions.map((record) => record.interactionId),
        ),
        interactions,
      };
    },

    async conversationAgents(conversationId) {
      ensureOpen();
      return (selectAgents.all(conversationId) as { agent_id: string }[]).map((row) => row.agent_id);
    },

    async listConversations(query) {
      ensureOpen();
      const q = normalizeConversationQuery(query);
      // A conversation pruned while its evaluations are kept is gone from the list (its row remains).
      const conditions = [
        'pruned_at_ms IS NULL',
        q.agentId !== undefined && 'agent_id = ?',
        q.sinceMs !== undefined && 'last_activity_ms >= ?',
        q.open !== undefined && 'open = ?',
      ].filter(Boolean);
      const statement = filtered(`list${conditions.join()}`, () => {
        const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
        return `SELECT ${STATE_COLUMNS} FROM conversations ${where}
          ORDER BY last_activity_ms DESC, conversation_id DESC, agent_id DESC LIMIT ?`;
      });
      const params: (string | number)[] = [];
      if (q.agentId !== undefined) params.push(q.agentId);
      if (q.sinceMs !== undefined) params.push(q.sinceMs);
      if (q.open !== undefined) params.push(q.open ? 1 : 0);
      params.push(q.limit);
      return (statement.all(...params) as Row[]).map((row) => {
        const state = stateOf(row);
        return conversationRecordOf(state, turnIds(state.conversationId, state.agentId, state.revision));
      });
    },

    async requestConversationEnd(request) {
      ensureOpen();
      const id = `${request?.conversationId}`;
      const state = (await writer.write({
        op: 'requestConversationEnd',
        conversationId: requireText(request.conversationId, 'conversationId', id, path),
        agentId: requireText(request.agentId, 'agentId', id, path),
        atMs: isoMs(request.at, 'at', id, path),
        dueAtMs: isoMs(request.dueAt, 'dueAt', id, path),
      })) as ConversationState | null;
      if (!state) return undefined;
      return conversationRecordOf(state, turnIds(state.conversationId, state.agentId, state.revision));
    },

    async findDueConversations({ now, idleMs, limit }) {
      ensureOpen();
      const nowMs = parseIsoTime(now);
      if (nowMs === undefined) throw new LedgerQueryError('now', `ledger query: now must be an ISO-8601 time`);
      const due: DueConversation[] = [];
      for (const row of selectEndDue.all(nowMs, limit) as Row[]) {
        due.push({
          ...keyOf(row),
          endReason: 'explicit',
          endTime: new Date(Number(row.end_requested_ms)).toISOString(),
        });
      }
      if (due.length < limit) {
        for (const row of selectIdle.all(nowMs - idleMs, limit - due.length) as Row[]) {
          const endMs = Number(row.last_activity_ms) + idleMs;
          due.push({ ...keyOf(row), endReason: 'idle', endTime: new Date(endMs).toISOString() });
        }
      }
      return due;
    },

    async closeConversations(due) {
      ensureOpen();
      if (due.length === 0) return [];
      const closes: CloseRow[] = due.map((d) => ({
        conversationId: d.conversationId,
        agentId: d.agentId,
        revision: d.revision,
        turns: d.turns,
        endReason: d.endReason,
        endTimeMs: isoMs(d.endTime, 'endTime', d.conversationId, path),
      }));
      const closed = (await writer.write({ op: 'closeConversations', closes })) as ConversationRevisionKey[];
      return closed.map((key) => revisionOf(selectRevision.get(key.conversationId, key.agentId, key.revision) as Row));
    },

    async loadConversationsAwaitingIntake(limit) {
      ensureOpen();
      return (selectAwaiting.all(limit) as Row[]).map(revisionOf);
    },

    async listConversationRevisions(conversationId, agentId) {
      ensureOpen();
      return (selectRevisions.all(conversationId, agentId) as Row[]).map(revisionOf);
    },

    async pageConversationRevisions(query) {
      ensureOpen();
      const { after, agentId, sinceMs, limit } = normalizeRevisionPageQuery(query);
      const conditions = [
        'seq > ?',
        agentId !== undefined && 'agent_id = ?',
        sinceMs !== undefined && 'end_time_ms >= ?',
      ];
      const statement = filtered(`page${conditions.join()}`, () => {
        return `SELECT ${REVISION_COLUMNS} FROM conversation_revisions
          WHERE ${conditions.filter(Boolean).join(' AND ')} ORDER BY seq LIMIT ?`;
      });
      const params: (string | number)[] = [after];
      if (agentId !== undefined) params.push(agentId);
      if (sinceMs !== undefined) params.push(sinceMs);
      params.push(limit);
      const revisions = (statement.all(...params) as Row[]).map(revisionOf);
      return revisions.length === limit
        ? { revisions, nextCursor: String(revisions[revisions.length - 1].seq) }
        : { revisions };
    },

    async countConversationRevisions(query) {
      ensureOpen();
      const { agentId, sinceMs } = normalizeRevisionCountQuery(query);
      const conditions = [agentId !== undefined && 'agent_id = ?', sinceMs !== undefined && 'end_time_ms >= ?'].filter(
        Boolean,
      );
      const statement = filtered(`count${conditions.join()}`, () => {
        const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
        return `SELECT count(*) AS n FROM conversation_revisions ${where}`;
      });
      const params: (string | number)[] = [];
      if (agentId !== undefined) params.push(agentId);
      if (sinceMs !== undefined) params.push(sinceMs);
      return Number((statement.get(...params) as { n: number }).n);
    },

    async getConversationEvaluations(conversationId, agentId) {
      ensureOpen();
      const row = selectState.get(conversationId, agentId) as Row | undefined;
      if (!row) return [];
      const { revision } = stateOf(row);
      const keys = Array.from({ length: revision }, (_, index) =>
        conversationSubjectKey({ conversationId, agentId, revision: index + 1 }),
      );
      return (selectEvaluations.all(JSON.stringify(keys)) as { record: string }[]).map(
        (r) => JSON.parse(r.record) as EvaluationRecord,
      );
    },
  };
}

function keyOf(row: Row): Omit<DueConversation, 'endReason' | 'endTime'> {
  return {
    conversationId: String(row.conversation_id),
    agentId: String(row.agent_id),
    revision: Number(row.revision),
    turns: Number(row.turns),
  };
}
