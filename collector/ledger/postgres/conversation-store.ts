/**
 * The conversation role of the PostgreSQL store: reads on the pool (the due queries use partial
 * indexes over open conversations only), writes in transactions (`conversation-writes.ts`). Turns
 * are recorded by `putInteractions` itself.
 */
import type pg from 'pg';
import type { EvaluationRecord, InteractionRecord } from '../../../src/model/records.ts';
import {
  normalizeConversationQuery,
  normalizeRevisionCountQuery,
  normalizeRevisionPageQuery,
} from '../conversation-query.ts';
import type { ConversationRevision, ConversationStore, DueConversation } from '../conversation-store.ts';
import { conversationAtRevision, conversationRecordOf, inOrder, revisionOfRow } from '../core/conversation-records.ts';
import { conversationSubjectKey, isoMs, requireText } from '../core/rows.ts';
import { LedgerQueryError } from '../errors.ts';
import { parseIsoTime } from '../interaction-query.ts';
import { inTransaction } from './connection.ts';
import {
  closeDue,
  REVISION_COLUMNS,
  requestEnd,
  revisionRowOf,
  STATE_COLUMNS,
  stateOf,
} from './conversation-writes.ts';
import type { Run } from './evaluation-store.ts';
import { parseInteraction, recordColumns, type StoredRecordRow } from './interaction-text.ts';

type Row = Record<string, unknown>;

const TURN_IDS = `
  SELECT conversation_id, agent_id, revision, interaction_id FROM conversation_turns
  WHERE (conversation_id, agent_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
  ORDER BY conversation_id, agent_id, start_time_ms, interaction_id`;
const RECORDS = `
  SELECT ${recordColumns('i')} FROM conversation_turns t JOIN interactions i ON i.interaction_id = t.interaction_id
  WHERE t.conversation_id = $1 AND t.agent_id = $2 AND t.revision <= $3 ORDER BY t.start_time_ms, t.interaction_id`;

export function createConversationStoreMethods(pool: pg.Pool, where: string, run: Run): ConversationStore {
  /** The interaction ids of several conversations at once, each up to its revision (one round trip). */
  async function turnIdsOf(
    keys: Array<{ conversationId: string; agentId: string; revision: number }>,
  ): Promise<string[][]> {
    if (keys.length === 0) return [];
    const { rows } = await pool.query<{
      conversation_id: string;
      agent_id: string;
      revision: number;
      interaction_id: string;
    }>(TURN_IDS, [keys.map((key) => key.conversationId), keys.map((key) => key.agentId)]);
    return keys.map((key) =>
      rows
        .filter((row) => row.conversation_id === key.conversationId && row.agent_id === key.agentId)
        .filter((row) => row.revision <= key.revision)
        .map((row) => row.interaction_id),
    );
  }

  async function revisionsOf(rows: Row[]): Promise<ConversationRevision[]> {
    const parsed = rows.map(revisionRowOf);
    const ids = await turnIdsOf(parsed.map(({ row }) => row));
    return parsed.map(({ seq, row }, index) => revisionOfRow(row, seq, ids[index]));
  }

  async function records(conversationId: string, agentId: string, upTo: number): Promise<InteractionRecord[]> {
    const { rows } = await pool.query<StoredRecordRow>(RECORDS, [conversationId, agentId, upTo]);
    return rows.map(parseInteraction);
  }

  return {
    getConversation(conversationId, agentId, options = {}) {
      return run('getConversation', async () => {
        if (options.revision !== undefined) {
          const { rows } = await pool.query<Row>(
            `SELECT ${REVISION_COLUMNS} FROM conversation_revisions
             WHERE conversation_id = $1 AND agent_id = $2 AND revision = $3`,
            [conversationId, agentId, options.revision],
          );
          if (rows.length === 0) return undefined;
          const [revision] = await revisionsOf(rows);
          const found = await records(conversationId, agentId, revision.revision);
          return conversationAtRevision(revision, inOrder(revision.interactionIds, found));
        }
        const { rows } = await pool.query<Row>(
          `SELECT ${STATE_COLUMNS} FROM conversations WHERE conversation_id = $1 AND agent_id = $2`,
          [conversationId, agentId],
        );
        const state = rows[0] && stateOf(rows[0]);
        if (!state) return undefined;
        const interactions = await records(conversationId, agentId, state.revision);
        return {
          ...conversationRecordOf(
            state,
            interactions.map((record) => record.interactionId),
          ),
          interactions,
        };
      });
    },

    conversationAgents(conversationId) {
      return run('conversationAgents', async () => {
        const { rows } = await pool.query<{ agent_id: string }>(
          'SELECT agent_id FROM conversations WHERE conversation_id = $1 AND revision > 0 ORDER BY agent_id',
          [conversationId],
        );
        return rows.map((row) => row.agent_id);
      });
    },

    listConversations(query) {
      return run('listConversations', async () => {
        const q = normalizeConversationQuery(query);
        const params: unknown[] = [];
        // A conversation pruned while its evaluations are kept is gone from the list (its row remains).
        const conditions = ['revision > 0', 'pruned_at_ms IS NULL'];
        if (q.agentId !== undefined) conditions.push(`agent_id = $${params.push(q.agentId)}`);
        if (q.sinceMs !== undefined) conditions.push(`last_activity_ms >= $${params.push(q.sinceMs)}`);
        if (q.open !== undefined) conditions.push(`open = $${params.push(q.open)}`);
        const { rows } = await pool.query<Row>(
          `SELECT ${STATE_COLUMNS} FROM conversations WHERE ${conditions.join(' AND ')}
           ORDER BY last_activity_ms DESC, conversation_id DESC, agent_id DESC LIMIT $${params.push(q.limit)}`,
          params,
        );
        const states = rows.flatMap((row) => {
          const state = stateOf(row);
          return state ? [state] : [];
        });
        const ids = await turnIdsOf(states);
        return states.map((state, index) => conversationRecordOf(state, ids[index]));
      });
    },

    requestConversationEnd(request) {
      return run('requestConversationEnd', async () => {
        const id = `${request?.conversationId}`;
        const checked = {
          conversationId: requireText(request.conversationId, 'conversationId', id, where),
          agentId: requireText(request.agentId, 'agentId', id, where),
          atMs: isoMs(request.at, 'at', id, where),
          dueAtMs: isoMs(request.dueAt, 'dueAt', id, where),
        };
        const state = await inTransaction(pool, (client) => requestEnd(client, checked));
        if (!state) return undefined;
        const [ids] = await turnIdsOf([state]);
        return conversationRecordOf(state, ids);
      });
    },

    findDueConversations({ now, idleMs, limit }) {
      return run('findDueConversations', async () => {
        const nowMs = parseIsoTime(now);
        if (nowMs === undefined) throw new LedgerQueryError('now', 'ledger query: now must be an ISO-8601 time');
        const due: DueConversation[] = [];
        const { rows: ending } = await pool.query<Row>(
          `SELECT conversation_id, agent_id, revision, turns, end_requested_ms FROM conversations
           WHERE open AND end_due_ms IS NOT NULL AND end_due_ms <= $1 ORDER BY end_due_ms LIMIT $2`,
          [nowMs, limit],
        );
        for (const row of ending) {
          due.push({
            ...keyOf(row),
            endReason: 'explicit',
            endTime: new Date(Number(row.end_requested_ms)).toISOString(),
          });
        }
        if (due.length >= limit) return due;
        const { rows: idle } = await pool.query<Row>(
          `SELECT conversation_id, agent_id, revision, turns, last_activity_ms FROM conversations
           WHERE open AND last_activity_ms <= $1 AND end_requested_ms IS NULL AND revision > 0
           ORDER BY last_activity_ms LIMIT $2`,
          [nowMs - idleMs, limit - due.length],
        );
        for (const row of idle) {
          const endMs = Number(row.last_activity_ms) + idleMs;
          due.push({ ...keyOf(row), endReason: 'idle', endTime: new Date(endMs).toISOString() });
        }
        return due;
      });
    },

    closeConversations(due) {
      return run('closeConversations', async () => {
        if (due.length === 0) return [];
        const closes = due.map((d) => ({
          conversationId: d.conversationId,
          agentId: d.agentId,
          revision: d.revision,
          turns: d.turns,
          endReason: d.endReason,
          endTimeMs: isoMs(d.endTime, 'endTime', d.conversationId, where),
        }));
        const closed = await inTransaction(pool, (client) => closeDue(client, closes));
        if (closed.length === 0) return [];
        const { rows } = await pool.query<Row>(
          `SELECT ${REVISION_COLUMNS} FROM conversation_revisions r
           WHERE (r.conversation_id, r.agent_id, r.revision)
                 IN (SELECT * FROM unnest($1::text[], $2::text[], $3::int[]))
           ORDER BY seq`,
          [closed.map((c) => c.conversationId), closed.map((c) => c.agentId), closed.map((c) => c.revision)],
        );
        return revisionsOf(rows);
      });
    },

    loadConversationsAwaitingIntake(limit) {
      return run('loadConversationsAwaitingIntake', async () => {
        const { rows } = await pool.query<Row>(
          `SELECT ${REVISION_COLUMNS} FROM conversation_revisions WHERE awaiting_intake ORDER BY seq LIMIT $1`,
          [limit],
        );
        return revisionsOf(rows);
      });
    },

    listConversationRevisions(conversationId, agentId) {
      return run('listConversationRevisions', async () => {
        const { rows } = await pool.query<Row>(
          `SELECT ${REVISION_COLUMNS} FROM conversation_revisions WHERE conversation_id = $1 AND agent_id = $2
           ORDER BY revision`,
          [conversationId, agentId],
        );
        return revisionsOf(rows);
      });
    },

    pageConversationRevisions(query) {
      return run('pageConversationRevisions', async () => {
        const { after, agentId, sinceMs, limit } = normalizeRevisionPageQuery(query);
        const params: unknown[] = [after];
        const conditions = ['seq > $1'];
        if (agentId !== undefined) conditions.push(`agent_id = $${params.push(agentId)}`);
        if (sinceMs !== undefined) conditions.push(`end_time_ms >= $${params.push(sinceMs)}`);
        const { rows } = await pool.query<Row>(
          `SELECT ${REVISION_COLUMNS} FROM conversation_revisions WHERE ${conditions.join(' AND ')}
           ORDER BY seq LIMIT $${params.push(limit)}`,
          params,
        );
        const revisions = await revisionsOf(rows);
        return revisions.length === limit
          ? { revisions, nextCursor: String(revisions[revisions.length - 1].seq) }
          : { revisions };
      });
    },

    countConversationRevisions(query) {
      return run('countConversationRevisions', async () => {
        const { agentId, sinceMs } = normalizeRevisionCountQuery(query);
        const params: unknown[] = [];
        const conditions: string[] = [];
        if (agentId !== undefined) conditions.push(`agent_id = $${params.push(agentId)}`);
        if (sinceMs !== undefined) conditions.push(`end_time_ms >= $${params.push(sinceMs)}`);
        const clause = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
        const { rows } = await pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM conversation_revisions ${clause}`,
          params,
        );
        return Number(rows[0].n);
      });
    },

    getConversationEvaluations(conversationId, agentId) {
      return run('getConversationEvaluations', async () => {
        const { rows: found } = await pool.query<{ revision: number }>(
          'SELECT revision FROM conversations WHERE conversation_id = $1 AND agent_id = $2',
          [conversationId, agentId],
        );
        const revision = found[0]?.revision ?? 0;
        if (revision < 1) return [];
        const keys = Array.from({ length: revision }, (_, index) =>
          conversationSubjectKey({ conversationId, agentId, revision: index + 1 }),
        );
        const { rows } = await pool.query<{ record: EvaluationRecord }>(
          'SELECT record FROM evaluations WHERE interaction_id = ANY($1::text[]) ORDER BY completed_at_ms, id',
          [keys],
        );
        return rows.map((row) => row.record);
      });
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
