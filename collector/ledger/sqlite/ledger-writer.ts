/**
 * Every write of the SQLite ledger, as plain requests applied on one connection, each in one
 * transaction. Requests carry already-encoded rows, so the writer does nothing but SQL: it runs on
 * the store's writer thread (or inline for an in-memory ledger).
 */
import type { DatabaseSync } from 'node:sqlite';
import type { TurnRow } from '../core/conversation-turns.ts';
import type { InteractionRow, SpanRow } from '../core/rows.ts';
import { createConversationWrites, type ConversationWriteRequest } from './conversation-writes.ts';
import { createEvaluationWrites, type EvaluationWriteRequest } from './evaluation-writes.ts';
import { createRetentionWrites, type RetentionWriteRequest } from './retention-writes.ts';
import { createWaitAndReviewWrites, type WaitAndReviewWriteRequest } from './wait-and-review-writes.ts';

export type { InteractionRow, SpanRow } from '../core/rows.ts';

export interface LateSpanRow {
  interactionId: string;
  traceId: string;
  spanId: string;
  receivedAtMs: number;
  codec: number;
  bytes: Uint8Array;
}

export type WriteRequest =
  | { op: 'appendSpans'; rows: SpanRow[] }
  | { op: 'putInteractions'; rows: InteractionRow[] }
  | { op: 'releaseTraces'; traceIds: string[] }
  | { op: 'putLateSpans'; rows: LateSpanRow[] }
  | ConversationWriteRequest
  | EvaluationWriteRequest
  | RetentionWriteRequest
  | WaitAndReviewWriteRequest;

export interface LedgerWriter {
  /**
   * Applies one request in one transaction and returns what it answers (structured-cloneable;
   * undefined for most); throws (after rolling back) when it fails.
   */
  write(request: WriteRequest): unknown;
}

export function createLedgerWriter(db: DatabaseSync): LedgerWriter {
  const insertSpans = db.prepare('INSERT INTO pending_spans (trace_id, span_count, codec, spans) VALUES (?, ?, ?, ?)');
  // json_each turns one JSON array parameter into a set: one prepared statement serves any count.
  const deleteSpans = db.prepare('DELETE FROM pending_spans WHERE trace_id IN (SELECT value FROM json_each(?))');
  // A record's JSON may come as UTF-8 bytes: CAST stores them as the text they are.
  const insertInteraction = db.prepare(`
    INSERT OR IGNORE INTO interactions (interaction_id, trace_id, agent_id, conversation_id, end_time_ms, record)
    VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT))`);
  const insertLate = db.prepare(
    'INSERT INTO late_spans (interaction_id, trace_id, span_id, received_at_ms, codec, span) VALUES (?, ?, ?, ?, ?, ?)',
  );

  const conversations = createConversationWrites(db);
  const applyEvaluationWrite = createEvaluationWrites(db, conversations);
  const applyRetentionWrite = createRetentionWrites(db);
  const applyWaitOrReviewWrite = createWaitAndReviewWrites(db);

  function apply(request: WriteRequest): unknown {
    switch (request.op) {
      case 'appendSpans':
        for (const row of request.rows) insertSpans.run(row.traceId, row.count, row.codec, row.bytes);
        return;
      case 'putInteractions': {
        const stored: string[] = [];
        const turns: TurnRow[] = [];
        for (const r of request.rows) {
          const inserted = insertInteraction.run(
            r.interactionId,
            r.traceId,
            r.agentId,
            r.conversationId,
            r.endTimeMs,
            r.json,
          );
          // A record already present (a replay) is neither new to the ledger nor a new turn.
          if (Number(inserted.changes) !== 1) continue;
          stored.push(r.interactionId);
          if (r.turn) turns.push(r.turn);
        }
        conversations.recordTurns(turns);
        // The ids new to the ledger: the interactions processor hands only those on.
        return stored;
      }
      case 'releaseTraces':
        deleteSpans.run(JSON.stringify(request.traceIds));
        return;
      case 'putLateSpans':
        for (const r of request.rows)
          insertLate.run(r.interactionId, r.traceId, r.spanId, r.receivedAtMs, r.codec, r.bytes);
        return;
      case 'requestConversationEnd':
      case 'closeConversations':
        return conversations.apply(request);
      case 'pruneUnits':
      case 'pruneEvaluations':
      case 'reclaimSpace':
        return applyRetentionWrite(request);
      case 'parkEvaluations':
      case 'deliverSignal':
      case 'openReview':
      case 'claimReview':
        return applyWaitOrReviewWrite(request);
      default:
        return applyEvaluationWrite(request);
    }
  }

  return {
    write(request) {
      // IMMEDIATE takes the write lock before the transaction's first read, waiting (busy_timeout)
      // while another connection holds it, such as `evalon ledger prune` in another process. A
      // deferred transaction that reads first and then writes would fail at once instead: SQLite
      // does not wait to turn a read into a write, and that read could be stale.
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = apply(request);
        db.exec('COMMIT');
        return result;
      } catch (error) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // SQLite already ended the transaction (a failed COMMIT can do that): nothing to undo.
        }
        throw error;
      }
    },
  };
}
