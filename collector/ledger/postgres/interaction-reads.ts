/**
 * The PostgreSQL ledger's reads of interactions: by id, newest first with filters, in pages oldest
 * first, counts, and the agents seen. Records are parsed where they are read (interaction-text.ts);
 * beside `postgres-store.ts`, with its `run`.
 */
import type pg from 'pg';
import {
  type InteractionFilters,
  normalizeCountQuery,
  normalizeInteractionQuery,
  normalizePageQuery,
} from '../interaction-query.ts';
import type { InteractionStore } from '../interaction-store.ts';
import type { Run } from './evaluation-store.ts';
import { parseInteraction, recordColumns, type StoredRecordRow } from './interaction-text.ts';

export type InteractionReadMethods = Pick<
  InteractionStore,
  | 'getInteraction'
  | 'listInteractions'
  | 'existingInteractionIds'
  | 'pageInteractions'
  | 'countInteractions'
  | 'listAgents'
>;

export function createInteractionReadMethods(pool: pg.Pool, run: Run): InteractionReadMethods {
  return {
    getInteraction(interactionId) {
      return run('getInteraction', async () => {
        const { rows } = await pool.query<StoredRecordRow>(
          `SELECT ${recordColumns()} FROM interactions WHERE interaction_id = $1`,
          [interactionId],
        );
        return rows[0] && parseInteraction(rows[0]);
      });
    },

    listInteractions(query) {
      return run('listInteractions', async () => {
        const q = normalizeInteractionQuery(query);
        const params: unknown[] = [];
        const conditions: string[] = [];
        for (const [column, value] of [
          ['agent_id', q.agentId],
          ['conversation_id', q.conversationId],
          ['end_time_ms', q.sinceMs],
        ] as const) {
          if (value === undefined) continue;
          params.push(value);
          conditions.push(`${column} ${column === 'end_time_ms' ? '>=' : '='} $${params.length}`);
        }
        params.push(q.limit);
        const clause = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
        const { rows } = await pool.query<StoredRecordRow>(
          `SELECT ${recordColumns()} FROM interactions ${clause}
           ORDER BY end_time_ms DESC, interaction_id DESC LIMIT $${params.length}`,
          params,
        );
        return rows.map(parseInteraction);
      });
    },

    existingInteractionIds(ids) {
      return run('existingInteractionIds', async () => {
        if (ids.length === 0) return new Set<string>();
        const { rows } = await pool.query<{ interaction_id: string }>(
          'SELECT interaction_id FROM interactions WHERE interaction_id = ANY($1::text[])',
          [ids],
        );
        return new Set(rows.map((row) => row.interaction_id));
      });
    },

    async pageInteractions(query) {
      return run('pageInteractions', async () => {
        const page = normalizePageQuery(query);
        const { limit } = page;
        const params: unknown[] = [page.after];
        const conditions = ['seq > $1', ...filters(page, params)];
        params.push(limit);
        const { rows } = await pool.query<StoredRecordRow & { seq: string }>(
          `SELECT seq, ${recordColumns()} FROM interactions WHERE ${conditions.join(' AND ')}
           ORDER BY seq LIMIT $${params.length}`,
          params,
        );
        const records = rows.map(parseInteraction);
        return rows.length === limit ? { records, nextCursor: rows[rows.length - 1].seq } : { records };
      });
    },

    async countInteractions(query) {
      return run('countInteractions', async () => {
        const params: unknown[] = [];
        const conditions = filters(normalizeCountQuery(query), params);
        const clause = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
        const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM interactions ${clause}`, params);
        return Number(rows[0].n);
      });
    },

    async listAgents() {
      return run('listAgents', async () => {
        // The roles are read from the newest record here: the server cannot look inside a compressed one.
        const { rows } = await pool.query<StoredRecordRow & { agent_id: string; n: string; last: string }>(`
          SELECT a.agent_id, a.n, a.last, ${recordColumns('newest')}
          FROM (SELECT agent_id, count(*) AS n, max(end_time_ms) AS last FROM interactions GROUP BY agent_id) a
          CROSS JOIN LATERAL (
            SELECT ${recordColumns('i')} FROM interactions i
            WHERE i.agent_id = a.agent_id ORDER BY i.end_time_ms DESC, i.interaction_id DESC LIMIT 1) newest
          ORDER BY a.agent_id`);
        return rows.map((row) => ({
          agentId: row.agent_id,
          roles: parsedRoles(row),
          interactions: Number(row.n),
          lastSeen: new Date(Number(row.last)).toISOString(),
        }));
      });
    },
  };
}

/** WHERE conditions for agent and since; their values are pushed to `params`. */
function filters(query: InteractionFilters, params: unknown[]): string[] {
  const conditions: string[] = [];
  if (query.agentId !== undefined) {
    params.push(query.agentId);
    conditions.push(`agent_id = $${params.length}`);
  }
  if (query.sinceMs !== undefined) {
    params.push(query.sinceMs);
    conditions.push(`end_time_ms >= $${params.length}`);
  }
  return conditions;
}

/** The roles of a stored record, or none when it has no list of them. */
function parsedRoles(row: StoredRecordRow): string[] {
  const { roles } = parseInteraction(row);
  return Array.isArray(roles) ? roles : [];
}
