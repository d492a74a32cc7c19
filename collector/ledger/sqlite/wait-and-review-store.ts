/**
 * Signal waits and reviews in the SQLite store: reads on the store's reader connection, writes
 * through its writer (`wait-and-review-writes.ts`). The contracts: evaluation-waits.ts and
 * review-store.ts.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import {
  reviewCursor,
  reviewFromRow,
  reviewRow,
  normalizeReviewQuery,
  type StoredReview,
} from '../core/review-rows.ts';
import { isoMs, progressJson, requireText } from '../core/rows.ts';
import { LedgerStoreError } from '../errors.ts';
import type { DurableProgress, QueuedEvaluation } from '../evaluation-queue.ts';
import type { EvaluationWaits, SignalDeliveryResult } from '../evaluation-waits.ts';
import type { ReviewStore } from '../review-store.ts';
import type { ClaimOutcome } from './wait-and-review-writes.ts';
import type { WriterClient } from './writer-client.ts';

const REVIEW_COLUMNS = `review_id, entry_id, agent_id, interaction_id, status, created_at_ms,
  due_at_ms, claimed_by, claimed_until_ms, completed_at_ms, review, record, sort_ms`;

export function createWaitAndReviewMethods(
  db: DatabaseSync,
  path: string,
  writer: WriterClient,
  ensureOpen: () => void,
): EvaluationWaits & ReviewStore {
  const DUE_COLUMNS = 'seq, task, attempts, started_at_ms, progress, signal_name, signal_payload, signal_at_ms';
  const selectDue = db.prepare(`
    SELECT ${DUE_COLUMNS} FROM evaluation_queue
    WHERE awaiting_signal IS NOT NULL AND wake_at_ms <= ? ORDER BY wake_at_ms LIMIT ?`);
  const selectDueClaimable = db.prepare(`
    SELECT ${DUE_COLUMNS} FROM evaluation_queue
    WHERE awaiting_signal IS NOT NULL AND wake_at_ms <= ?
      AND (lease_owner IS NULL OR lease_owner = ? OR lease_until_ms <= ?)
    ORDER BY wake_at_ms LIMIT ?`);
  const selectReview = db.prepare(`SELECT ${REVIEW_COLUMNS} FROM reviews WHERE review_id = ?`);
  const openForInteraction = db.prepare("SELECT 1 FROM reviews WHERE interaction_id = ? AND status = 'open' LIMIT 1");
  const openForConversation = db.prepare(
    "SELECT 1 FROM reviews WHERE conversation_id = ? AND agent_id = ? AND status = 'open' LIMIT 1",
  );
  const listStatements = new Map<string, StatementSync>();

  /** One statement per (status filter, agent, cursor): each reads its index in order. */
  function listStatement(status: string, agent: boolean, after: boolean): StatementSync {
    const key = `${status}${+agent}${+after}`;
    let statement = listStatements.get(key);
    if (!statement) {
      const newest = status === 'done' || status === 'expired';
      const conditions = ['status = ?'];
      if (agent) conditions.unshift('agent_id = ?');
      if (status === 'open') conditions.push('(claimed_until_ms IS NULL OR claimed_until_ms <= ?)');
      if (status === 'claimed') conditions.push('claimed_until_ms > ?');
      if (after) conditions.push(newest ? '(sort_ms, review_id) < (?, ?)' : '(sort_ms, review_id) > (?, ?)');
      const order = newest ? 'sort_ms DESC, review_id DESC' : 'sort_ms, review_id';
      statement = db.prepare(
        `SELECT ${REVIEW_COLUMNS} FROM reviews WHERE ${conditions.join(' AND ')} ORDER BY ${order} LIMIT ?`,
      );
      listStatements.set(key, statement);
    }
    return statement;
  }

  function readReview(reviewId: string, nowMs: number) {
    const row = selectReview.get(reviewId) as StoredReview | undefined;
    return row ? reviewFromRow(row, nowMs) : undefined;
  }

  return {
    async parkEvaluations(parks) {
      ensureOpen();
      if (parks.length === 0) return;
      await writer.write({ op: 'parkEvaluations', parks: parks.map((park) => parkRow(park, path)) });
    },

    async loadDueEvaluations(query) {
      ensureOpen();
      const nowMs = isoMs(query.now, 'now', 'due query', path);
      const claimable = query.claimableBy;
      const rows = (claimable
        ? selectDueClaimable.all(
            nowMs,
            requireText(claimable.owner, 'lease owner', 'query', path),
            isoMs(claimable.at, 'claimableBy.at', 'query', path),
            query.limit,
          )
        : selectDue.all(nowMs, query.limit)) as unknown as DueRow[];
      return rows.map(dueEvaluation);
    },

    async deliverSignal(delivery) {
      ensureOpen();
      const evaluationId = requireText(delivery?.evaluationId, 'evaluationId', '', path);
      const signal = requireText(delivery.signal, 'signal', evaluationId, path);
      const atMs = isoMs(delivery.at, 'at', evaluationId, path);
      let payload: string;
      try {
        payload = JSON.stringify(delivery.payload ?? null);
      } catch (error) {
        throw new LedgerStoreError(`ledger ${path}: the payload of signal ${signal} is not JSON`, { cause: error });
      }
      return (await writer.write({ op: 'deliverSignal', evaluationId, signal, payload, atMs })) as SignalDeliveryResult;
    },

    async openReview(review) {
      ensureOpen();
      const row = reviewRow(review, path);
      await writer.write({ op: 'openReview', row });
      return readReview(row.reviewId, Date.now())!;
    },

    async getReview(reviewId) {
      ensureOpen();
      return readReview(reviewId, Date.now());
    },

    async listReviews(query) {
      ensureOpen();
      const q = normalizeReviewQuery(query);
      const params: (string | number)[] = [];
      if (q.agentId !== undefined) params.push(q.agentId);
      params.push(q.status === 'claimed' ? 'open' : q.status);
      if (q.status === 'open' || q.status === 'claimed') params.push(q.nowMs);
      if (q.after) params.push(q.after.ms, q.after.id);
      params.push(q.limit);
      const rows = listStatement(q.status, q.agentId !== undefined, q.after !== undefined).all(
        ...params,
      ) as unknown as Array<StoredReview & { sort_ms: number }>;
      const reviews = rows.map((row) => reviewFromRow(row, q.nowMs));
      return rows.length === q.limit ? { reviews, nextCursor: reviewCursor(rows[rows.length - 1]!) } : { reviews };
    },

    async claimReview(claim) {
      ensureOpen();
      const reviewId = requireText(claim?.reviewId, 'reviewId', '', path);
      const request = {
        op: 'claimReview' as const,
        reviewId,
        reviewer: requireText(claim.reviewer, 'reviewer', reviewId, path),
        atMs: isoMs(claim.at, 'at', reviewId, path),
        untilMs: isoMs(claim.until, 'until', reviewId, path),
      };
      const outcome = (await writer.write(request)) as ClaimOutcome;
      const review = readReview(reviewId, request.atMs);
      if (outcome === 'unknown' || !review) return { kind: 'unknown' };
      return { kind: outcome, review };
    },

    async isUnderOpenReview(subject) {
      ensureOpen();
      const row =
        subject.kind === 'conversation'
          ? openForConversation.get(subject.conversationId, subject.agentId)
          : openForInteraction.get(subject.interactionId);
      return row !== undefined;
    },
  };
}

interface DueRow {
  seq: number;
  task: string;
  attempts: number;
  started_at_ms: number | null;
  progress: string | null;
  signal_name: string | null;
  signal_payload: string | null;
  signal_at_ms: number | null;
}

function dueEvaluation(row: DueRow): QueuedEvaluation {
  const queued = JSON.parse(row.task) as QueuedEvaluation;
  queued.seq = Number(row.seq);
  queued.attempts = Number(row.attempts);
  if (row.started_at_ms !== null) queued.startedAt = new Date(Number(row.started_at_ms)).toISOString();
  if (row.progress !== null) queued.progress = JSON.parse(row.progress) as DurableProgress;
  if (row.signal_name !== null) {
    queued.signal = {
      signal: row.signal_name,
      payload: row.signal_payload === null ? null : JSON.parse(row.signal_payload),
      receivedAt: new Date(Number(row.signal_at_ms)).toISOString(),
    };
  }
  return queued;
}

/** A park checked: its progress must say what it waits for and until when. */
export function parkRow(
  park: { seq: number; progress: DurableProgress },
  where: string,
): { seq: number; json: string; signal: string; deadlineMs: number } {
  const awaiting = park.progress?.awaiting;
  if (!awaiting)
    throw new LedgerStoreError(`ledger ${where}: parkEvaluations: evaluation #${park.seq} has no progress.awaiting`);
  return {
    seq: park.seq,
    json: progressJson(park.progress, park.seq, where),
    signal: requireText(awaiting.signal, 'awaiting.signal', `#${park.seq}`, where),
    deadlineMs: isoMs(awaiting.deadline, 'awaiting.deadline', `#${park.seq}`, where),
  };
}
