/**
 * What token budgets need of the PostgreSQL ledger: dropping queued evaluations that never
 * started (their entry's budget was spent) and reading back the recent outcomes of some evaluator
 * entries (the budgets' windows rebuilt at start). Beside `evaluation-store.ts`, with its `run`.
 */
import type pg from 'pg';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { isoMs } from '../core/rows.ts';
import type { EvaluationQueue } from '../evaluation-queue.ts';
import { RECENT_EVALUATIONS_SLACK_MS, type RecordedEvaluations } from '../recorded-evaluations.ts';
import type { Run } from './evaluation-store.ts';

/** Recorded evaluations read per page by `loadRecentEvaluations`. */
const RECENT_PAGE = 1000;

// Only what never started (a parked evaluation started: its attempts count afresh from its wait),
// and what no other owner ($2) holds a live lease on at $3 (ms).
const DROP = `
  DELETE FROM evaluation_queue
  WHERE seq = ANY($1::bigint[]) AND attempts = 0 AND awaiting_signal IS NULL
    AND (lease_owner IS NULL OR lease_owner = $2::text OR lease_until <= to_timestamp($3::bigint / 1000.0))
  RETURNING seq`;
// Newest written first; the record only for the entries asked about (the others are read for their time).
const RECENT = `
  SELECT id, completed_at_ms,
    CASE WHEN evaluator_id = ANY($1::text[]) THEN record END AS record
  FROM evaluations WHERE id < $2::bigint ORDER BY id DESC LIMIT $3::int`;

export type EvaluationSkipMethods = Pick<EvaluationQueue, 'dropEvaluations'> &
  Pick<RecordedEvaluations, 'loadRecentEvaluations'>;

export function createEvaluationSkipMethods(pool: pg.Pool, where: string, run: Run): EvaluationSkipMethods {
  return {
    async dropEvaluations(seqs, options) {
      return run('dropEvaluations', async () => {
        if (seqs.length === 0) return [];
        const atMs = isoMs(options.at, 'at', 'drop', where);
        const { rows } = await pool.query<{ seq: string }>(DROP, [[...seqs], options.owner ?? null, atMs]);
        const dropped = new Set(rows.map((row) => Number(row.seq)));
        return seqs.filter((seq) => dropped.has(seq));
      });
    },

    async loadRecentEvaluations(query) {
      return run('loadRecentEvaluations', async () => {
        const sinceMs = isoMs(query.since, 'since', 'recent evaluations', where);
        if (query.evaluatorIds.length === 0) return [];
        const found: EvaluationRecord[] = [];
        for (let before = '9223372036854775807'; ; ) {
          const { rows } = await pool.query<{ id: string; completed_at_ms: string; record: EvaluationRecord | null }>(
            RECENT,
            [query.evaluatorIds, before, RECENT_PAGE],
          );
          let inReach = false;
          for (const row of rows) {
            const completedAtMs = Number(row.completed_at_ms);
            if (completedAtMs >= sinceMs - RECENT_EVALUATIONS_SLACK_MS) inReach = true;
            if (row.record !== null && completedAtMs >= sinceMs) found.push(row.record);
          }
          if (rows.length < RECENT_PAGE || !inReach) return found;
          before = rows[rows.length - 1].id;
        }
      });
    },
  };
}
