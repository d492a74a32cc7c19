/**
 * The evaluation writes of the SQLite ledger: queue triggered evaluations (and advance the intake
 * mark), count attempts, save durable progress, record outcomes. Applied by `ledger-writer.ts` inside its transaction;
 * rows arrive already encoded, so this is SQL only.
 *
 * Exactly once rests on two unique keys on (subject, evaluator, evaluator version): one in the
 * queue, one among recorded evaluations (the `interaction_id` column holds the subject key).
 * Queuing skips a key that is recorded; recording drops a record whose key is recorded, and removes
 * the key from the queue in the same transaction.
 */
import type { DatabaseSync } from 'node:sqlite';
import { closedStatus } from '../core/review-rows.ts';
import type { ConversationRevisionKey } from '../conversation-store.ts';
import type { EvaluationRecordRow, QueuedEvaluationRow } from '../core/rows.ts';
import type { ConversationWrites } from './conversation-writes.ts';

export type { EvaluationRecordRow, QueuedEvaluationRow } from '../core/rows.ts';

export type EvaluationWriteRequest =
  | {
      op: 'enqueueEvaluations';
      rows: QueuedEvaluationRow[];
      intake: string[];
      conversationIntake?: ConversationRevisionKey[];
    }
  | {
      op: 'startEvaluations';
      starts: { seq: number; startedAtMs: number }[];
      lease?: { owner: string; untilMs: number };
    }
  | { op: 'renewEvaluationLeases'; lease: { owner: string; untilMs: number }; seqs: number[] }
  | { op: 'releaseEvaluationLeases'; owner: string; seqs: number[] }
  | { op: 'dropEvaluations'; seqs: number[]; atMs: number; owner: string | null }
  | { op: 'recordEvaluations'; rows: EvaluationRecordRow[]; followUps?: FollowUpRow[] }
  | { op: 'saveEvaluationProgress'; updates: { seq: number; json: string }[] };

/** An evaluation routed from a record: queued when that record (`after`, its evaluation id) is written. */
export interface FollowUpRow extends QueuedEvaluationRow {
  after: string;
}

/** `enqueueEvaluations` answers the queued evaluations' ids with their `seq`. */
export type EnqueueResult = Array<[evaluationId: string, seq: number]>;
/** `recordEvaluations` answers the ids of the records written, and the follow-ups queued. */
export type RecordResult = { written: string[]; queued: EnqueueResult };

export function createEvaluationWrites(
  db: DatabaseSync,
  conversations: Pick<ConversationWrites, 'takeIn'>,
): (request: EvaluationWriteRequest) => unknown {
  const enqueue = db.prepare(`
    INSERT OR IGNORE INTO evaluation_queue
      (evaluation_id, interaction_id, evaluator_id, evaluator_version, triggered_at_ms, task)
    SELECT ?, ?, ?, ?, ?, ?
    WHERE NOT EXISTS (
      SELECT 1 FROM evaluations WHERE interaction_id = ? AND evaluator_id = ? AND evaluator_version = ?
    )`);
  // Interactions get increasing rowids (none is ever deleted): the mark is the highest taken in.
  const advanceIntake = db.prepare(`
    UPDATE evaluation_intake SET through_rowid = max(through_rowid, coalesce(
      (SELECT max(rowid) FROM interactions WHERE interaction_id IN (SELECT value FROM json_each(?))), 0))
    WHERE id = 1`);
  // A start takes the lease unless another owner holds one that has not expired at the start's time.
  const start = db.prepare(`
    UPDATE evaluation_queue SET attempts = attempts + 1, started_at_ms = ?, lease_owner = ?, lease_until_ms = ?
    WHERE seq = ? AND (lease_owner IS NULL OR lease_owner IS ? OR lease_until_ms <= ?)`);
  const renew = db.prepare('UPDATE evaluation_queue SET lease_until_ms = ? WHERE seq = ? AND lease_owner = ?');
  const release = db.prepare(
    'UPDATE evaluation_queue SET lease_owner = NULL, lease_until_ms = NULL WHERE seq = ? AND lease_owner = ?',
  );
  // A step after a wait: the wait is over, and the signal it resumed with is consumed (one
  // delivered before any wait stays for the wait to come).
  const saveProgress = db.prepare(`
    UPDATE evaluation_queue SET progress = ?,
      signal_name = CASE WHEN awaiting_signal IS NULL THEN signal_name END,
      signal_payload = CASE WHEN awaiting_signal IS NULL THEN signal_payload END,
      signal_at_ms = CASE WHEN awaiting_signal IS NULL THEN signal_at_ms END,
      awaiting_signal = NULL, wake_at_ms = NULL
    WHERE seq = ?`);
  // The review of an evaluation follows its record (review-store.ts).
  const closeReview = db.prepare(`
    UPDATE reviews SET status = ?, completed_at_ms = ?, sort_ms = ?, record = ?, claimed_by = NULL,
      claimed_until_ms = NULL
    WHERE review_id = ? AND status = 'open'`);
  // Only what never started (a parked evaluation started: its attempts count afresh from its wait),
  // and what no other owner holds a live lease on.
  const drop = db.prepare(`
    DELETE FROM evaluation_queue
    WHERE seq = ? AND attempts = 0 AND awaiting_signal IS NULL
      AND (lease_owner IS NULL OR lease_owner IS ? OR lease_until_ms <= ?)`);
  const record = db.prepare(`
    INSERT OR IGNORE INTO evaluations
      (evaluation_id, interaction_id, evaluator_id, evaluator_version, agent_id, outcome, completed_at_ms, record)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const dequeue = db.prepare(
    'DELETE FROM evaluation_queue WHERE interaction_id = ? AND evaluator_id = ? AND evaluator_version = ?',
  );

  return (request) => {
    switch (request.op) {
      case 'enqueueEvaluations': {
        const queued: EnqueueResult = [];
        for (const r of request.rows) {
          const result = enqueue.run(
            r.evaluationId,
            r.interactionId,
            r.evaluatorId,
            r.evaluatorVersion,
            r.triggeredAtMs,
            r.json,
            r.interactionId,
            r.evaluatorId,
            r.evaluatorVersion,
          );
          if (Number(result.changes) === 1) queued.push([r.evaluationId, Number(result.lastInsertRowid)]);
        }
        if (request.intake.length > 0) advanceIntake.run(JSON.stringify(request.intake));
        if (request.conversationIntake) conversations.takeIn(request.conversationIntake);
        return queued;
      }
      case 'startEvaluations': {
        const started: number[] = [];
        const owner = request.lease?.owner ?? null;
        const until = request.lease?.untilMs ?? null;
        for (const s of request.starts) {
          if (Number(start.run(s.startedAtMs, owner, until, s.seq, owner, s.startedAtMs).changes) === 1)
            started.push(s.seq);
        }
        return started;
      }
      case 'renewEvaluationLeases':
        return request.seqs.filter(
          (seq) => Number(renew.run(request.lease.untilMs, seq, request.lease.owner).changes) === 1,
        );
      case 'releaseEvaluationLeases':
        for (const seq of request.seqs) release.run(seq, request.owner);
        return undefined;
      case 'dropEvaluations':
        return request.seqs.filter((seq) => Number(drop.run(seq, request.owner, request.atMs).changes) === 1);
      case 'saveEvaluationProgress':
        for (const u of request.updates) saveProgress.run(u.json, u.seq);
        return undefined;
      case 'recordEvaluations': {
        const written: string[] = [];
        for (const r of request.rows) {
          const result = record.run(
            r.evaluationId,
            r.interactionId,
            r.evaluatorId,
            r.evaluatorVersion,
            r.agentId,
            r.outcome,
            r.completedAtMs,
            r.json,
          );
          if (Number(result.changes) === 1) {
            written.push(r.evaluationId);
            closeReview.run(closedStatus(r.outcome), r.completedAtMs, r.completedAtMs, r.json, r.evaluationId);
          }
          dequeue.run(r.interactionId, r.evaluatorId, r.evaluatorVersion);
        }
        const writtenIds = new Set(written);
        const queued: EnqueueResult = [];
        for (const f of request.followUps ?? []) {
          if (!writtenIds.has(f.after)) continue;
          const result = enqueue.run(
            f.evaluationId,
            f.interactionId,
            f.evaluatorId,
            f.evaluatorVersion,
            f.triggeredAtMs,
            f.json,
            f.interactionId,
            f.evaluatorId,
            f.evaluatorVersion,
          );
          if (Number(result.changes) === 1) queued.push([f.evaluationId, Number(result.lastInsertRowid)]);
        }
        const answer: RecordResult = { written, queued };
        return answer;
      }
    }
  };
}
