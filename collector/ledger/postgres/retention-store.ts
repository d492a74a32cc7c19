/**
 * The retention role of the PostgreSQL store: the units to consider (read), pruning them in one
 * transaction each call (prune-units.ts), kept evaluations with their tombstones, the size
 * (ledger-size.ts), and the pruning lock replicas take turns with.
 *
 * Space: PostgreSQL reuses what deletes free (autovacuum marks it free; migration 3 has it run
 * after 2% of a table's rows died instead of 20%), and never gives it back to the file system by
 * itself: `reclaimSpace` has nothing to do (`incremental: false`). VACUUM FULL or pg_repack shrink
 * the tables, with the collectors stopped (docs/retention.md).
 */
import type pg from 'pg';
import {
  conversationAfter,
  conversationEvaluationKeys,
  interactionAfter,
  interactionReadEnd,
  mergePage,
  normalizePrunableQuery,
  retentionTimeMs,
  type StreamRows,
} from '../core/prune-units.ts';
import { emptyTally, type LedgerRetention } from '../ledger-retention.ts';
import { inTransaction } from './connection.ts';
import type { Run } from './evaluation-store.ts';
import { measurePostgresLedger } from './ledger-size.ts';
import { pruneUnitsInTransaction } from './prune-units.ts';

/** `pg_try_advisory_lock` key of the pruning lock: "Prune" in ASCII. */
export const PRUNING_LOCK_KEY = 0x50_72_75_6e_65;

const SELECT_INTERACTIONS = `
  SELECT interaction_id, agent_id, end_time_ms FROM interactions i
  WHERE (end_time_ms, interaction_id) > ($1, $2) AND end_time_ms < $3
    AND NOT EXISTS (SELECT 1 FROM conversation_turns t WHERE t.interaction_id = i.interaction_id)
  ORDER BY end_time_ms, interaction_id LIMIT $4`;
const SELECT_CONVERSATIONS = `
  SELECT conversation_id, agent_id, last_activity_ms FROM conversations
  WHERE (last_activity_ms, conversation_id, agent_id) > ($1, $2, $3) AND last_activity_ms < $4
    AND revision > 0 AND NOT open AND pruned_at_ms IS NULL
  ORDER BY last_activity_ms, conversation_id, agent_id LIMIT $5`;
const SELECT_TURN_IDS = `
  SELECT conversation_id, agent_id, interaction_id FROM conversation_turns
  WHERE (conversation_id, agent_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
  ORDER BY start_time_ms, interaction_id`;
const OLD_TOMBSTONES = `
  SELECT interaction_id, end_time_ms FROM pruned_interactions WHERE end_time_ms < $1
  ORDER BY end_time_ms, interaction_id LIMIT $2`;
const OLD_CONVERSATIONS = `
  SELECT conversation_id, agent_id, revision, last_activity_ms FROM conversations
  WHERE pruned_at_ms IS NOT NULL AND last_activity_ms < $1
  ORDER BY last_activity_ms, conversation_id, agent_id LIMIT $2`;
const REVIEWS_OF_SUBJECTS = `
  FROM reviews WHERE (conversation_id IS NULL AND interaction_id = ANY($1::text[]))
    OR (conversation_id, agent_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))`;
const COUNT_REVIEWS = `
  SELECT count(*) AS n, coalesce(sum(pg_column_size(review) + coalesce(pg_column_size(record), 0)), 0) AS bytes
  ${REVIEWS_OF_SUBJECTS}`;
const DELETE_REVIEWS = `DELETE ${REVIEWS_OF_SUBJECTS}`;
const COUNT_EVALUATIONS = `
  SELECT count(*) AS n, coalesce(sum(pg_column_size(record)), 0) AS bytes
  FROM evaluations WHERE interaction_id = ANY($1::text[])`;

type Row = Record<string, unknown>;

export function createRetentionStoreMethods(pool: pg.Pool, where: string, run: Run): LedgerRetention {
  const iso = (ms: unknown) => new Date(Number(ms)).toISOString();
  /** Whether the server can flush statistics on demand (PostgreSQL 15 and later). */
  let flushes: Promise<boolean> | undefined;
  const canFlush = () =>
    (flushes ??= pool
      .query<{ ok: boolean }>("SELECT to_regprocedure('pg_stat_force_next_flush()') IS NOT NULL AS ok")
      .then(({ rows }) => rows[0].ok));

  return {
    measureLedgerSize() {
      return run('measureLedgerSize', () => measurePostgresLedger(pool));
    },

    findPrunable(query) {
      return run('findPrunable', async () => {
        const q = normalizePrunableQuery(query);
        const found = (
          await pool.query<Row>(SELECT_CONVERSATIONS, [...conversationAfter(q.cursor), q.beforeMs, q.limit])
        ).rows;
        const turns = new Map<string, string[]>();
        if (found.length > 0) {
          const { rows } = await pool.query<Row>(SELECT_TURN_IDS, [
            found.map((row) => row.conversation_id),
            found.map((row) => row.agent_id),
          ]);
          for (const row of rows) {
            const key = `${row.conversation_id}\u0000${row.agent_id}`;
            turns.set(key, [...(turns.get(key) ?? []), String(row.interaction_id)]);
          }
        }
        const conversations: StreamRows['conversations'] = found.map((row) => ({
          conversationId: String(row.conversation_id),
          agentId: String(row.agent_id),
          endMs: Number(row.last_activity_ms),
          interactionIds: turns.get(`${row.conversation_id}\u0000${row.agent_id}`) ?? [],
        }));
        const readEnd = interactionReadEnd(q, conversations);
        const interactions = (
          await pool.query<Row>(SELECT_INTERACTIONS, [...interactionAfter(q.cursor), readEnd, q.limit])
        ).rows.map((row) => ({
          interactionId: String(row.interaction_id),
          agentId: String(row.agent_id),
          endMs: Number(row.end_time_ms),
        }));
        return mergePage({ interactions, conversations }, q);
      });
    },

    pruneUnits(units, options) {
      return run('pruneUnits', async () => {
        const atMs = retentionTimeMs(options.at, 'at', 'pruneUnits', where);
        if (units.length === 0) return { pruned: [], kept: [], deferred: [], tally: emptyTally() };
        const flushStatistics = await canFlush();
        return inTransaction(pool, (client) =>
          pruneUnitsInTransaction(client, units, { ...options, atMs, flushStatistics }),
        );
      });
    },

    pruneEvaluations(query) {
      return run('pruneEvaluations', async () => {
        const beforeMs =
          query.before === undefined
            ? Number.MAX_SAFE_INTEGER
            : retentionTimeMs(query.before, 'before', 'pruneEvaluations', where);
        return inTransaction(pool, async (client) => {
          const tombstones = (await client.query<Row>(OLD_TOMBSTONES, [beforeMs, query.limit])).rows.map((row) => ({
            endMs: Number(row.end_time_ms),
            keys: [String(row.interaction_id)],
            conversation: undefined as { conversationId: string; agentId: string } | undefined,
            remove: (c: pg.ClientBase) =>
              c.query('DELETE FROM pruned_interactions WHERE interaction_id = $1', [row.interaction_id]),
          }));
          // Locked: a turn that would reopen one of them waits (and finds it gone).
          const lock = query.dryRun ? '' : ' FOR UPDATE';
          const conversations = (await client.query<Row>(OLD_CONVERSATIONS + lock, [beforeMs, query.limit])).rows.map(
            (row) => ({
              endMs: Number(row.last_activity_ms),
              keys: conversationEvaluationKeys(String(row.conversation_id), String(row.agent_id), Number(row.revision)),
              conversation: { conversationId: String(row.conversation_id), agentId: String(row.agent_id) },
              remove: (c: pg.ClientBase) =>
                c.query('DELETE FROM conversations WHERE conversation_id = $1 AND agent_id = $2', [
                  row.conversation_id,
                  row.agent_id,
                ]),
            }),
          );
          const subjects = [...tombstones, ...conversations].sort((a, b) => a.endMs - b.endMs).slice(0, query.limit);
          const keys = subjects.flatMap((subject) => subject.keys);
          const tally = emptyTally();
          const { rows } = await client.query<{ n: string; bytes: string }>(COUNT_EVALUATIONS, [keys]);
          tally.evaluations = { count: Number(rows[0].n), bytes: Number(rows[0].bytes) };
          // Their reviews: a tombstone's interaction's, a conversation's.
          const reviewed = [
            subjects.flatMap((s) => (s.conversation ? [] : s.keys)),
            subjects.flatMap((s) => (s.conversation ? [s.conversation.conversationId] : [])),
            subjects.flatMap((s) => (s.conversation ? [s.conversation.agentId] : [])),
          ];
          const found = (await client.query<{ n: string; bytes: string }>(COUNT_REVIEWS, reviewed)).rows[0];
          tally.reviews = { count: Number(found.n), bytes: Number(found.bytes) };
          if (!query.dryRun && subjects.length > 0) {
            await client.query(DELETE_REVIEWS, reviewed);
            await client.query('DELETE FROM evaluations WHERE interaction_id = ANY($1::text[])', [keys]);
            for (const subject of subjects) await subject.remove(client);
            if (await canFlush()) await client.query('SELECT pg_stat_force_next_flush()');
          }
          return { subjects: subjects.length, tally };
        });
      });
    },

    reclaimSpace() {
      return run('reclaimSpace', async () => ({ bytes: 0, incremental: false }));
    },

    lockPruning() {
      return run('lockPruning', async () => {
        // A session lock on a connection of its own: it dies with the process that holds it.
        const client = await pool.connect();
        try {
          const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
            PRUNING_LOCK_KEY,
          ]);
          if (!rows[0].locked) {
            client.release();
            return undefined;
          }
        } catch (error) {
          client.release(error as Error);
          throw error;
        }
        let released = false;
        return {
          async release() {
            if (released) return;
            released = true;
            try {
              await client.query('SELECT pg_advisory_unlock($1)', [PRUNING_LOCK_KEY]);
              client.release();
            } catch (error) {
              client.release(error as Error); // a broken connection takes its lock with it
            }
          },
        };
      });
    },

    getPrunedInteraction(interactionId) {
      return run('getPrunedInteraction', async () => {
        const { rows } = await pool.query<Row>(
          'SELECT trace_id, agent_id, end_time_ms, pruned_at_ms FROM pruned_interactions WHERE interaction_id = $1',
          [interactionId],
        );
        const row = rows[0];
        if (!row) return undefined;
        return {
          interactionId,
          traceId: String(row.trace_id),
          agentId: String(row.agent_id),
          endTime: iso(row.end_time_ms),
          prunedAt: iso(row.pruned_at_ms),
        };
      });
    },

    getPrunedConversation(conversationId, agentId) {
      return run('getPrunedConversation', async () => {
        const { rows } = await pool.query<Row>(
          `SELECT revision, last_activity_ms, pruned_at_ms FROM conversations
           WHERE conversation_id = $1 AND agent_id = $2 AND pruned_at_ms IS NOT NULL`,
          [conversationId, agentId],
        );
        const row = rows[0];
        if (!row) return undefined;
        return {
          conversationId,
          agentId,
          revision: Number(row.revision),
          lastActivity: iso(row.last_activity_ms),
          prunedAt: iso(row.pruned_at_ms),
        };
      });
    },
  };
}
