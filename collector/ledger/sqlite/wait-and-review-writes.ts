/**
 * The SQLite writes of signal waits and reviews, applied by `ledger-writer.ts` inside its
 * transaction: park evaluations (with their review's due time), deliver a signal (one wins),
 * open a review, claim one. Rows arrive checked and encoded; this is SQL only, and each request
 * answers what the caller needs to decide (structured-cloneable).
 */
import type { DatabaseSync } from 'node:sqlite';
import type { ReviewRow } from '../core/review-rows.ts';
import type { SignalDeliveryResult } from '../evaluation-waits.ts';

export type WaitAndReviewWriteRequest =
  | { op: 'parkEvaluations'; parks: { seq: number; json: string; signal: string; deadlineMs: number }[] }
  | {
      op: 'deliverSignal';
      evaluationId: string;
      signal: string;
      payload: string;
      atMs: number;
    }
  | { op: 'openReview'; row: ReviewRow }
  | { op: 'claimReview'; reviewId: string; reviewer: string; atMs: number; untilMs: number };

/** `claimReview` answers how it went (the store reads the review afterwards). */
export type ClaimOutcome = 'claimed' | 'held' | 'closed' | 'unknown';

export function createWaitAndReviewWrites(db: DatabaseSync): (request: WaitAndReviewWriteRequest) => unknown {
  // A signal delivered before this first park wakes it at once; one delivered to an earlier wait
  // was consumed when that wait resumed, and is cleared.
  const park = db.prepare(`
    UPDATE evaluation_queue SET progress = ?, attempts = 0, lease_owner = NULL, lease_until_ms = NULL,
      wake_at_ms = CASE WHEN awaiting_signal IS NULL AND signal_name = ? THEN min(signal_at_ms, ?) ELSE ? END,
      signal_name = CASE WHEN awaiting_signal IS NULL THEN signal_name END,
      signal_payload = CASE WHEN awaiting_signal IS NULL THEN signal_payload END,
      signal_at_ms = CASE WHEN awaiting_signal IS NULL THEN signal_at_ms END,
      awaiting_signal = ?
    WHERE seq = ?`);
  const reviewDue = db.prepare(`
    UPDATE reviews SET due_at_ms = ?
    WHERE status = 'open' AND review_id = (SELECT evaluation_id FROM evaluation_queue WHERE seq = ?)`);
  const deliver = db.prepare(`
    UPDATE evaluation_queue SET signal_name = ?1, signal_payload = ?2, signal_at_ms = ?3,
      wake_at_ms = CASE WHEN awaiting_signal = ?1 THEN ?3 ELSE wake_at_ms END
    WHERE evaluation_id = ?4 AND signal_name IS NULL AND NOT (awaiting_signal IS ?1 AND wake_at_ms <= ?3)`);
  const deliveryState = db.prepare('SELECT signal_name FROM evaluation_queue WHERE evaluation_id = ?');
  const openReview = db.prepare(`
    INSERT OR IGNORE INTO reviews (review_id, entry_id, agent_id, interaction_id, conversation_id,
      status, created_at_ms, sort_ms, review)
    VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?)`);
  const claim = db.prepare(`
    UPDATE reviews SET claimed_by = ?1, claimed_until_ms = ?3
    WHERE review_id = ?4 AND status = 'open' AND (claimed_by IS NULL OR claimed_by = ?1 OR claimed_until_ms <= ?2)`);
  const reviewState = db.prepare('SELECT status FROM reviews WHERE review_id = ?');

  return (request) => {
    switch (request.op) {
      case 'parkEvaluations':
        for (const p of request.parks) {
          park.run(p.json, p.signal, p.deadlineMs, p.deadlineMs, p.signal, p.seq);
          reviewDue.run(p.deadlineMs, p.seq);
        }
        return undefined;
      case 'deliverSignal': {
        const { evaluationId, signal, payload, atMs } = request;
        if (Number(deliver.run(signal, payload, atMs, evaluationId).changes) === 1) return 'delivered';
        const row = deliveryState.get(evaluationId) as { signal_name: string | null } | undefined;
        const result: SignalDeliveryResult = !row ? 'unknown' : row.signal_name !== null ? 'duplicate' : 'expired';
        return result;
      }
      case 'openReview': {
        const r = request.row;
        openReview.run(
          r.reviewId,
          r.entryId,
          r.agentId,
          r.interactionId,
          r.conversationId,
          r.createdAtMs,
          r.createdAtMs,
          r.json,
        );
        return undefined;
      }
      case 'claimReview': {
        const { reviewId, reviewer, atMs, untilMs } = request;
        if (Number(claim.run(reviewer, atMs, untilMs, reviewId).changes) === 1) return 'claimed' as ClaimOutcome;
        const row = reviewState.get(reviewId) as { status: string } | undefined;
        return (!row ? 'unknown' : row.status === 'open' ? 'held' : 'closed') as ClaimOutcome;
      }
    }
  };
}
