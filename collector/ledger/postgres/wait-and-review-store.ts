/**
 * Signal waits and reviews in the PostgreSQL store: each write one statement (its own
 * transaction); concurrent deliveries or claims of one row serialize on its row lock, and the
 * second re-checks its condition against the first. The contracts: evaluation-waits.ts and
 * review-store.ts.
 */
import type pg from 'pg';
import type { DurableProgress } from '../../../src/model/records.ts';
import {
  normalizeReviewQuery,
  reviewCursor,
  reviewFromRow,
  reviewRow,
  type StoredReview,
} from '../core/review-rows.ts';
import { isoMs, progressJson, requireText } from '../core/rows.ts';
import { LedgerStoreError } from '../errors.ts';
import type { QueuedEvaluation } from '../evaluation-queue.ts';
import type { EvaluationWaits, SignalDeliveryResult } from '../evaluation-waits.ts';
import type { ReviewRecord, ReviewStore } from '../review-store.ts';
import type { Run } from './evaluation-store.ts';

const REVIEW_COLUMNS = `review_id, entry_id, agent_id, interaction_id, status, created_at_ms,
  due_at_ms, claimed_by, claimed_until_ms, completed_at_ms, review, record, sort_ms`;
// A signal delivered before this first park wakes it at once; one delivered to an earlier wait was
// consumed when that wait resumed, and is cleared.
const PARK = `
  WITH parked AS (
    UPDATE evaluation_queue q SET progress = u.progress::json, attempts = 0, lease_owner = NULL, lease_until = NULL,
      wake_at_ms = CASE WHEN q.awaiting_signal IS NULL AND q.signal_name = u.signal
        THEN least(q.signal_at_ms, u.deadline_ms) ELSE u.deadline_ms END,
      signal_name = CASE WHEN q.awaiting_signal IS NULL THEN q.signal_name END,
      signal_payload = CASE WHEN q.awaiting_signal IS NULL THEN q.signal_payload END,
      signal_at_ms = CASE WHEN q.awaiting_signal IS NULL THEN q.signal_at_ms END,
      awaiting_signal = u.signal
    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) AS u(seq, progress, signal, deadline_ms)
    WHERE q.seq = u.seq
    RETURNING q.evaluation_id, u.deadline_ms)
  UPDATE reviews r SET due_at_ms = parked.deadline_ms
  FROM parked WHERE r.review_id = parked.evaluation_id AND r.status = 'open'`;
const DUE = `
  SELECT seq, task, attempts, started_at_ms, progress, signal_name, signal_payload, signal_at_ms
  FROM evaluation_queue WHERE awaiting_signal IS NOT NULL AND wake_at_ms <= $1`;
const DELIVER = `
  UPDATE evaluation_queue SET signal_name = $1::text, signal_payload = $2::json, signal_at_ms = $3::bigint,
    wake_at_ms = CASE WHEN awaiting_signal = $1::text THEN $3::bigint ELSE wake_at_ms END
  WHERE evaluation_id = $4 AND signal_name IS NULL
    AND NOT (awaiting_signal IS NOT DISTINCT FROM $1::text AND coalesce(wake_at_ms <= $3::bigint, false))
  RETURNING 1`;
const OPEN_REVIEW = `
  INSERT INTO reviews (review_id, entry_id, agent_id, interaction_id, conversation_id, status,
    created_at_ms, sort_ms, review)
  VALUES ($1, $2, $3, $4, $5, 'open', $6, $6, $7::json)
  ON CONFLICT (review_id) DO NOTHING`;
const CLAIM = `
  UPDATE reviews SET claimed_by = $1::text, claimed_until_ms = $3::bigint
  WHERE review_id = $4 AND status = 'open'
    AND (claimed_by IS NULL OR claimed_by = $1::text OR claimed_until_ms <= $2::bigint)
  RETURNING 1`;

export function createWaitAndReviewMethods(pool: pg.Pool, where: string, run: Run): EvaluationWaits & ReviewStore {
  async function readReview(reviewId: string, nowMs: number): Promise<ReviewRecord | undefined> {
    const { rows } = await pool.query<StoredReview>(`SELECT ${REVIEW_COLUMNS} FROM reviews WHERE review_id = $1`, [
      reviewId,
    ]);
    return rows[0] ? reviewFromRow(rows[0], nowMs) : undefined;
  }

  return {
    parkEvaluations(parks) {
      return run('parkEvaluations', async () => {
        if (parks.length === 0) return;
        const rows = parks.map((park) => {
          const awaiting = park.progress?.awaiting;
          if (!awaiting)
            throw new LedgerStoreError(`ledger ${where}: parkEvaluations: evaluation #${park.seq} has no awaiting`);
          return {
            seq: park.seq,
            json: progressJson(park.progress, park.seq, where),
            signal: requireText(awaiting.signal, 'awaiting.signal', `#${park.seq}`, where),
            deadlineMs: isoMs(awaiting.deadline, 'awaiting.deadline', `#${park.seq}`, where),
          };
        });
        await pool.query(PARK, [
          rows.map((r) => r.seq),
          rows.map((r) => r.json),
          rows.map((r) => r.signal),
          rows.map((r) => r.deadlineMs),
        ]);
      });
    },

    loadDueEvaluations(query) {
      return run('loadDueEvaluations', async () => {
        const params: unknown[] = [isoMs(query.now, 'now', 'due query', where)];
        let sql = DUE;
        const claimable = query.claimableBy;
        if (claimable) {
          params.push(
            requireText(claimable.owner, 'lease owner', 'query', where),
            isoMs(claimable.at, 'claimableBy.at', 'query', where),
          );
          sql +=
            ' AND (lease_owner IS NULL OR lease_owner = $2::text OR lease_until <= to_timestamp($3::bigint / 1000.0))';
        }
        params.push(query.limit);
        const { rows } = await pool.query<DueRow>(`${sql} ORDER BY wake_at_ms LIMIT $${params.length}`, params);
        return rows.map(dueEvaluation);
      });
    },

    deliverSignal(delivery) {
      return run('deliverSignal', async () => {
        const evaluationId = requireText(delivery?.evaluationId, 'evaluationId', '', where);
        const signal = requireText(delivery.signal, 'signal', evaluationId, where);
        const atMs = isoMs(delivery.at, 'at', evaluationId, where);
        const payload = JSON.stringify(delivery.payload ?? null);
        const { rowCount } = await pool.query(DELIVER, [signal, payload, atMs, evaluationId]);
        if (rowCount === 1) return 'delivered' as SignalDeliveryResult;
        const { rows } = await pool.query<{ signal_name: string | null }>(
          'SELECT signal_name FROM evaluation_queue WHERE evaluation_id = $1',
          [evaluationId],
        );
        const result: SignalDeliveryResult = !rows[0]
          ? 'unknown'
          : rows[0].signal_name !== null
            ? 'duplicate'
            : 'expired';
        return result;
      });
    },

    openReview(review) {
      return run('openReview', async () => {
        const r = reviewRow(review, where);
        await pool.query(OPEN_REVIEW, [
          r.reviewId,
          r.entryId,
          r.agentId,
          r.interactionId,
          r.conversationId,
          r.createdAtMs,
          r.json,
        ]);
        return (await readReview(r.reviewId, Date.now()))!;
      });
    },

    getReview(reviewId) {
      return run('getReview', () => readReview(reviewId, Date.now()));
    },

    listReviews(query) {
      return run('listReviews', async () => {
        const q = normalizeReviewQuery(query);
        const newest = q.status === 'done' || q.status === 'expired';
        const params: unknown[] = [q.status === 'claimed' ? 'open' : q.status];
        const conditions = ['status = $1'];
        if (q.agentId !== undefined) {
          params.push(q.agentId);
          conditions.push(`agent_id = $${params.length}`);
        }
        if (q.status === 'open' || q.status === 'claimed') {
          params.push(q.nowMs);
          conditions.push(
            q.status === 'open'
              ? `(claimed_until_ms IS NULL OR claimed_until_ms <= $${params.length})`
              : `claimed_until_ms > $${params.length}`,
          );
        }
        if (q.after) {
          params.push(q.after.ms, q.after.id);
          conditions.push(`(sort_ms, review_id) ${newest ? '<' : '>'} ($${params.length - 1}, $${params.length})`);
        }
        params.push(q.limit);
        const order = newest ? 'sort_ms DESC, review_id DESC' : 'sort_ms, review_id';
        const { rows } = await pool.query<StoredReview & { sort_ms: string }>(
          `SELECT ${REVIEW_COLUMNS} FROM reviews WHERE ${conditions.join(' AND ')} ORDER BY ${order} ` +
            `LIMIT $${params.length}`,
          params,
        );
        const reviews = rows.map((row) => reviewFromRow(row, q.nowMs));
        return rows.length === q.limit ? { reviews, nextCursor: reviewCursor(rows[rows.length - 1]!) } : { reviews };
      });
    },

    claimReview(claim) {
      return run('claimReview', async () => {
        const reviewId = requireText(claim?.reviewId, 'reviewId', '', where);
        const reviewer = requireText(claim.reviewer, 'reviewer', reviewId, where);
        const atMs = isoMs(claim.at, 'at', reviewId, where);
        const untilMs = isoMs(claim.until, 'until', reviewId, where);
        const { rowCount } = await pool.query(CLAIM, [reviewer, atMs, untilMs, reviewId]);
        const review = await readReview(reviewId, atMs);
        if (!review) return { kind: 'unknown' as const };
        if (rowCount === 1) return { kind: 'claimed' as const, review };
        return {
          kind: review.status === 'done' || review.status === 'expired' ? ('closed' as const) : ('held' as const),
          review,
        };
      });
    },

    isUnderOpenReview(subject) {
      return run('isUnderOpenReview', async () => {
        const { rowCount } =
          subject.kind === 'conversation'
            ? await pool.query(
                "SELECT 1 FROM reviews WHERE conversation_id = $1 AND agent_id = $2 AND status = 'open' LIMIT 1",
                [subject.conversationId, subject.agentId],
              )
            : await pool.query("SELECT 1 FROM reviews WHERE interaction_id = $1 AND status = 'open' LIMIT 1", [
                subject.interactionId,
              ]);
        return (rowCount ?? 0) > 0;
      });
    },
  };
}

interface DueRow {
  seq: string;
  task: QueuedEvaluation;
  attempts: number;
  started_at_ms: string | null;
  progress: DurableProgress | null;
  signal_name: string | null;
  signal_payload: unknown;
  signal_at_ms: string | null;
}

function dueEvaluation(row: DueRow): QueuedEvaluation {
  const queued = row.task;
  queued.seq = Number(row.seq);
  queued.attempts = Number(row.attempts);
  if (row.started_at_ms !== null) queued.startedAt = new Date(Number(row.started_at_ms)).toISOString();
  if (row.progress !== null) queued.progress = row.progress;
  if (row.signal_name !== null) {
    queued.signal = {
      signal: row.signal_name,
      payload: row.signal_payload ?? null,
      receivedAt: new Date(Number(row.signal_at_ms)).toISOString(),
    };
  }
  return queued;
}
