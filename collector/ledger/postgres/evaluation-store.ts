/**
 * The evaluation half of the PostgreSQL store: the queue, recorded evaluations and the intake mark
 * (the interactions awaiting intake read in order).
 *
 * Exactly once rests on two unique keys on (subject, evaluator, evaluator version): one in the
 * queue, one among recorded evaluations (the `interaction_id` column holds the subject key).
 * Queuing skips a key that is recorded; recording drops a record whose key is recorded and removes
 * the key from the queue in the same transaction.
 *
 * The intake mark is a row per interaction awaiting intake (`interaction_intake`) rather than
 * SQLite's "highest rowid taken in": with several connections (and several replicas) interactions
 * commit out of id order, and a mark could skip one that committed late.
 *
 * The queue's writes lock several queued rows each, in whatever order the server's plan visits
 * them: two of them over the same rows (a lease renewal and an outcome's dequeue, say) can end in a
 * deadlock, which the server breaks by rolling one back. That one runs again (`retryConflicts`,
 * `inRetriedTransaction`) rather than failing its outcome until the next start. Locking the rows in
 * seq order first would prevent it, for ~6 % of evaluation throughput (docs/benchmarks.md).
 */
import type pg from 'pg';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { closedStatus } from '../core/review-rows.ts';
import { followUpRow, isoMs, leaseRow, progressJson, queueRow, recordRow, requireText } from '../core/rows.ts';
import type { DurableProgress, EvaluationQueue, QueuedEvaluation } from '../evaluation-queue.ts';
import type { RecordedEvaluations } from '../recorded-evaluations.ts';
import { inRetriedTransaction, retryConflicts } from './connection.ts';
import { LedgerQueryError } from '../errors.ts';
import { takeIn } from './conversation-writes.ts';
import { parseInteraction, recordColumns, type StoredRecordRow } from './interaction-text.ts';

export type EvaluationStoreMethods = Omit<EvaluationQueue, 'dropEvaluations'> &
  Omit<RecordedEvaluations, 'loadRecentEvaluations'>;

const DEFAULT_QUEUE_PAGE = 1000;

export type Run = <T>(what: string, body: () => Promise<T>) => Promise<T>;

const ENQUEUE = `
  INSERT INTO evaluation_queue (evaluation_id, interaction_id, evaluator_id, evaluator_version, triggered_at_ms, task)
  SELECT u.evaluation_id, u.interaction_id, u.evaluator_id, u.evaluator_version, u.triggered_at_ms, u.task::json
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[])
    WITH ORDINALITY AS u(evaluation_id, interaction_id, evaluator_id, evaluator_version, triggered_at_ms, task, ord)
  WHERE NOT EXISTS (
    SELECT 1 FROM evaluations e
    WHERE e.interaction_id = u.interaction_id AND e.evaluator_id = u.evaluator_id
      AND e.evaluator_version = u.evaluator_version)
  ORDER BY u.ord
  ON CONFLICT (interaction_id, evaluator_id, evaluator_version) DO NOTHING
  RETURNING evaluation_id, seq`;
// ENQUEUE's NOT EXISTS sees evaluations as of its start: a key another replica records (and
// unqueues) meanwhile gets through. This next statement sees that commit and unqueues it again.
const UNQUEUE_RECORDED = `DELETE FROM evaluation_queue q USING evaluations e
  WHERE q.seq = ANY($1::bigint[]) AND (e.interaction_id, e.evaluator_id, e.evaluator_version)
    = (q.interaction_id, q.evaluator_id, q.evaluator_version) RETURNING q.evaluation_id`;
const TAKE_IN = 'DELETE FROM interaction_intake WHERE interaction_id = ANY($1::text[])';
const RECORD = `
  INSERT INTO evaluations
    (evaluation_id, interaction_id, evaluator_id, evaluator_version, agent_id, outcome, completed_at_ms, record)
  SELECT u.evaluation_id, u.interaction_id, u.evaluator_id, u.evaluator_version, u.agent_id, u.outcome,
    u.completed_at_ms, u.record::json
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[])
    WITH ORDINALITY AS u(evaluation_id, interaction_id, evaluator_id, evaluator_version, agent_id, outcome,
      completed_at_ms, record, ord)
  ORDER BY u.ord
  ON CONFLICT (interaction_id, evaluator_id, evaluator_version) DO NOTHING
  RETURNING evaluation_id`;
const DEQUEUE = `
  DELETE FROM evaluation_queue q
  USING unnest($1::text[], $2::text[], $3::text[]) AS u(interaction_id, evaluator_id, evaluator_version)
  WHERE q.interaction_id = u.interaction_id AND q.evaluator_id = u.evaluator_id
    AND q.evaluator_version = u.evaluator_version`;
// A start takes the lease ($4 owner, $5 until, ms) unless another owner holds one that has not
// expired at the start's time. Concurrent starts of one row serialize on its row lock, and the
// second re-checks the condition against the first's lease.
const START = `
  UPDATE evaluation_queue q SET attempts = q.attempts + u.n, started_at_ms = u.started_at_ms,
    lease_owner = $4::text, lease_until = to_timestamp($5::bigint / 1000.0)
  FROM unnest($1::bigint[], $2::int[], $3::bigint[]) AS u(seq, n, started_at_ms)
  WHERE q.seq = u.seq
    AND (q.lease_owner IS NULL OR q.lease_owner = $4::text OR q.lease_until <= to_timestamp(u.started_at_ms / 1000.0))
  RETURNING q.seq`;
const RENEW = `
  UPDATE evaluation_queue SET lease_until = to_timestamp($3::bigint / 1000.0)
  WHERE seq = ANY($1::bigint[]) AND lease_owner = $2::text
  RETURNING seq`;
const RELEASE = `
  UPDATE evaluation_queue SET lease_owner = NULL, lease_until = NULL
  WHERE seq = ANY($1::bigint[]) AND lease_owner = $2::text`;
const QUEUED_COLUMNS = 'seq, task, attempts, started_at_ms, progress';
// A step after a wait: the wait is over, and the signal it resumed with is consumed (one delivered
// before any wait stays for the wait to come).
const SAVE_PROGRESS = `
  UPDATE evaluation_queue q SET progress = u.progress::json,
    signal_name = CASE WHEN q.awaiting_signal IS NULL THEN q.signal_name END,
    signal_payload = CASE WHEN q.awaiting_signal IS NULL THEN q.signal_payload END,
    signal_at_ms = CASE WHEN q.awaiting_signal IS NULL THEN q.signal_at_ms END,
    awaiting_signal = NULL, wake_at_ms = NULL
  FROM unnest($1::bigint[], $2::text[]) AS u(seq, progress)
  WHERE q.seq = u.seq`;
// The review of an evaluation follows its record (review-store.ts).
const CLOSE_REVIEWS = `
  UPDATE reviews r SET status = u.status, completed_at_ms = u.completed_at_ms, sort_ms = u.completed_at_ms,
    record = u.record::json, claimed_by = NULL, claimed_until_ms = NULL
  FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS u(review_id, status, completed_at_ms, record)
  WHERE r.review_id = u.review_id AND r.status = 'open'`;

/**
 * `where` names the ledger in messages; `run(what, body)` checks the store is open and turns a
 * driver error into one naming the ledger and the operation.
 */
export function createEvaluationStoreMethods(pool: pg.Pool, where: string, run: Run): EvaluationStoreMethods {
  async function recordWithFollowUps(
    records: EvaluationRecord[],
    followUps: QueuedEvaluation[],
  ): Promise<{ written: string[]; queued: QueuedEvaluation[] }> {
    return run('recordEvaluations', async () => {
      if (records.length === 0) return { written: [], queued: [] };
      const checked = records.map((record) => recordRow(record, where));
      const routed = followUps.map((followUp) => followUpRow(followUp, where));
      return inRetriedTransaction(pool, async (client) => {
        const { rows } = await client.query<{ evaluation_id: string }>(RECORD, [
          checked.map((r) => r.evaluationId),
          checked.map((r) => r.interactionId),
          checked.map((r) => r.evaluatorId),
          checked.map((r) => r.evaluatorVersion),
          checked.map((r) => r.agentId),
          checked.map((r) => r.outcome),
          checked.map((r) => r.completedAtMs),
          checked.map((r) => r.json),
        ]);
        await client.query(DEQUEUE, [
          checked.map((r) => r.interactionId),
          checked.map((r) => r.evaluatorId),
          checked.map((r) => r.evaluatorVersion),
        ]);
        const written = new Set(rows.map((row) => row.evaluation_id));
        const closing = checked.filter((r) => written.has(r.evaluationId));
        if (closing.length > 0) {
          await client.query(CLOSE_REVIEWS, [
            closing.map((r) => r.evaluationId),
            closing.map((r) => closedStatus(r.outcome)),
            closing.map((r) => r.completedAtMs),
            closing.map((r) => r.json),
          ]);
        }
        const following = routed.filter((r) => written.has(r.after));
        const seqs = new Map<string, number>();
        if (following.length > 0) {
          const { rows: queued } = await client.query<{ evaluation_id: string; seq: string }>(ENQUEUE, [
            following.map((r) => r.evaluationId),
            following.map((r) => r.interactionId),
            following.map((r) => r.evaluatorId),
            following.map((r) => r.evaluatorVersion),
            following.map((r) => r.triggeredAtMs),
            following.map((r) => r.json),
          ]);
          for (const row of queued) seqs.set(row.evaluation_id, Number(row.seq));
        }
        return {
          written: [...new Set(checked.map((r) => r.evaluationId))].filter((id) => written.has(id)),
          queued: followUps.flatMap((followUp) => {
            const seq = seqs.get(followUp.evaluationId);
            return seq === undefined ? [] : [{ ...followUp, attempts: 0, seq }];
          }),
        };
      });
    });
  }

  return {
    async enqueueEvaluations(evaluations, options = {}) {
      const intake = options.intake ?? [];
      const conversationIntake = options.conversationIntake ?? [];
      return run('enqueueEvaluations', async () => {
        if (evaluations.length === 0 && intake.length === 0 && conversationIntake.length === 0) return [];
        const checked = evaluations.map((evaluation) => queueRow(evaluation, where));
        return inRetriedTransaction(pool, async (client) => {
          const seqs = new Map<string, number>();
          if (checked.length > 0) {
            const { rows: queued } = await client.query<{ evaluation_id: string; seq: string }>(ENQUEUE, [
              checked.map((r) => r.evaluationId),
              checked.map((r) => r.interactionId),
              checked.map((r) => r.evaluatorId),
              checked.map((r) => r.evaluatorVersion),
              checked.map((r) => r.triggeredAtMs),
              checked.map((r) => r.json),
            ]);
            for (const row of queued) seqs.set(row.evaluation_id, Number(row.seq));
            if (seqs.size > 0) {
              const { rows } = await client.query<{ evaluation_id: string }>(UNQUEUE_RECORDED, [[...seqs.values()]]);
              for (const row of rows) seqs.delete(row.evaluation_id);
            }
          }
          if (intake.length > 0) await client.query(TAKE_IN, [intake]);
          await takeIn(client, conversationIntake);
          return evaluations.flatMap((evaluation) => {
            const seq = seqs.get(evaluation.evaluationId);
            return seq === undefined ? [] : [{ ...evaluation, attempts: 0, seq }];
          });
        });
      });
    },

    async loadInteractionsAwaitingIntake(limit) {
      return run('loadInteractionsAwaitingIntake', async () => {
        const { rows } = await pool.query<StoredRecordRow>(
          `SELECT ${recordColumns('i')} FROM interaction_intake k JOIN interactions i USING (interaction_id)
           ORDER BY k.seq LIMIT $1`,
          [limit],
        );
        return rows.map(parseInteraction);
      });
    },

    async loadQueuedEvaluations(options = {}) {
      return run('loadQueuedEvaluations', async () => {
        const claimable = options.claimableBy;
        const { rows } = await pool.query<{
          seq: string;
          task: QueuedEvaluation;
          attempts: number;
          started_at_ms: string | null;
          progress: DurableProgress | null;
        }>(
          claimable
            ? `SELECT ${QUEUED_COLUMNS} FROM evaluation_queue
               WHERE seq > $1 AND awaiting_signal IS NULL
                 AND (lease_owner IS NULL OR lease_owner = $3::text OR lease_until <= to_timestamp($4::bigint / 1000.0))
               ORDER BY seq LIMIT $2`
            : `SELECT ${QUEUED_COLUMNS} FROM evaluation_queue
               WHERE seq > $1 AND awaiting_signal IS NULL ORDER BY seq LIMIT $2`,
          [
            options.afterSeq ?? 0,
            options.limit ?? DEFAULT_QUEUE_PAGE,
            ...(claimable
              ? [
                  requireText(claimable.owner, 'lease owner', 'query', where),
                  isoMs(claimable.at, 'claimableBy.at', 'query', where),
                ]
              : []),
          ],
        );
        return rows.map((row) => {
          const queued = row.task;
          queued.seq = Number(row.seq);
          queued.attempts = Number(row.attempts);
          if (row.started_at_ms !== null) queued.startedAt = new Date(Number(row.started_at_ms)).toISOString();
          if (row.progress !== null) queued.progress = row.progress;
          return queued;
        });
      });
    },

    async countQueuedEvaluations() {
      return run('countQueuedEvaluations', async () => {
        const { rows } = await pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM evaluation_queue WHERE awaiting_signal IS NULL',
        );
        return rows[0].n;
      });
    },

    async startEvaluations(starts, lease) {
      return run('startEvaluations', async () => {
        if (starts.length === 0) return [];
        // One row per seq: a seq started twice in one call counts two attempts, the last start kept.
        const bySeq = new Map<number, { n: number; ms: number }>();
        for (const start of starts) {
          const ms = isoMs(start.startedAt, 'startedAt', `#${start.seq}`, where);
          bySeq.set(start.seq, { n: (bySeq.get(start.seq)?.n ?? 0) + 1, ms });
        }
        const checked = lease ? leaseRow(lease, where) : undefined;
        const { rows } = await retryConflicts(() =>
          pool.query<{ seq: string }>(START, [
            [...bySeq.keys()],
            [...bySeq.values()].map((v) => v.n),
            [...bySeq.values()].map((v) => v.ms),
            checked?.owner ?? null,
            checked?.untilMs ?? null,
          ]),
        );
        const started = new Set(rows.map((row) => Number(row.seq)));
        return [...bySeq.keys()].filter((seq) => started.has(seq));
      });
    },

    async renewEvaluationLeases(lease, seqs) {
      return run('renewEvaluationLeases', async () => {
        if (seqs.length === 0) return [];
        const { owner, untilMs } = leaseRow(lease, where);
        const { rows } = await retryConflicts(() => pool.query<{ seq: string }>(RENEW, [[...seqs], owner, untilMs]));
        const renewed = new Set(rows.map((row) => Number(row.seq)));
        return seqs.filter((seq) => renewed.has(seq));
      });
    },

    async releaseEvaluationLeases(owner, seqs) {
      await run('releaseEvaluationLeases', async () => {
        if (seqs.length === 0) return;
        const owned = requireText(owner, 'lease owner', 'lease', where);
        await retryConflicts(() => pool.query(RELEASE, [[...seqs], owned]));
      });
    },

    async saveEvaluationProgress(updates) {
      await run('saveEvaluationProgress', async () => {
        if (updates.length === 0) return;
        // One statement is one transaction; the last update of a seq wins.
        const bySeq = new Map<number, string>();
        for (const update of updates) bySeq.set(update.seq, progressJson(update.progress, update.seq, where));
        await retryConflicts(() => pool.query(SAVE_PROGRESS, [[...bySeq.keys()], [...bySeq.values()]]));
      });
    },

    async recordEvaluations(records) {
      return (await recordWithFollowUps(records, [])).written;
    },

    recordEvaluationsWithFollowUps: recordWithFollowUps,

    async getEvaluations(interactionId) {
      return run('getEvaluations', async () => {
        const { rows } = await pool.query<{ record: EvaluationRecord }>(
          'SELECT record FROM evaluations WHERE interaction_id = $1 ORDER BY completed_at_ms, id',
          [interactionId],
        );
        return rows.map((row) => row.record);
      });
    },

    async pageEntryEvaluations(query) {
      return run('pageEntryEvaluations', async () => {
        if (query.before !== undefined && !/^\d+$/.test(query.before))
          throw new LedgerQueryError(
            'before',
            `ledger query: before ${JSON.stringify(query.before)} is not one this store gave`,
          );
        const { rows } = await pool.query<{ id: string; record: EvaluationRecord }>(
          `SELECT id, record FROM evaluations WHERE evaluator_id = $1 AND id < $2::bigint ORDER BY id DESC LIMIT $3`,
          [query.evaluatorId, query.before ?? '9223372036854775807', query.limit],
        );
        const records = rows.map((row) => row.record);
        return rows.length === query.limit ? { records, next: rows[rows.length - 1]!.id } : { records };
      });
    },
  };
}
