/**
 * What every ledger store checks and encodes before it writes, whatever the database: spans
 * grouped by trace and encoded (span-codec.ts), records and queued evaluations checked for the
 * fields the tables need, durable progress and lease values. Errors name the ledger (`where`), the
 * operation or evaluation and the field, so both stores answer bad input with the same message.
 */
import type { EvaluationRecord, EvaluationSubjectRef, InteractionRecord } from '../../../src/model/records.ts';
import type { SpanData } from '../../model/span.ts';
import type { SpanBatch } from '../../model/span-batch.ts';
import type { ConversationRevisionKey } from '../conversation-store.ts';
import { LedgerStoreError } from '../errors.ts';
import type { DurableProgress, EvaluationLease, QueuedEvaluation } from '../evaluation-queue.ts';
import { parseIsoTime } from '../interaction-query.ts';
import { conversationTurnOf, type TurnRow } from './conversation-turns.ts';
import { CODEC_OTLP_PROTOBUF, CODEC_V8, encodeSpans } from './span-codec.ts';

/**
 * What the queue's and the evaluations' `interaction_id` column holds: the key of the evaluated
 * subject, unique per subject. An interaction's is its id (as ever); a conversation revision's is
 * `conversation:["<conversationId>","<agentId>",<revision>]` (JSON: unambiguous whatever the ids
 * hold, and never an interaction id). Outcomes are exactly once per (subject key, evaluator,
 * evaluator version): the tables' unique keys, unchanged.
 */
export function subjectKeyOf(
  evaluation: {
    interactionId: string;
    subject?: EvaluationSubjectRef | (ConversationRevisionKey & { kind: 'conversation' });
  },
  id: string,
  where: string,
): string {
  const subject = evaluation.subject;
  if (subject?.kind !== 'conversation') return requireText(evaluation.interactionId, 'interactionId', id, where);
  requireText(subject.conversationId, 'subject.conversationId', id, where);
  requireText(subject.agentId, 'subject.agentId', id, where);
  if (!Number.isSafeInteger(subject.revision) || subject.revision < 1)
    throw new LedgerStoreError(
      `ledger ${where}: evaluation ${id} has subject.revision ${String(subject.revision)} (expected 1, 2, …)`,
    );
  return conversationSubjectKey(subject);
}

export function conversationSubjectKey(key: ConversationRevisionKey): string {
  return `conversation:${JSON.stringify([key.conversationId, key.agentId, key.revision])}`;
}

export interface SpanRow {
  traceId: string;
  count: number;
  codec: number;
  bytes: Uint8Array;
}

/**
 * One row per trace of the batch, its spans encoded together in their order of arrival: a batch
 * received as OTLP/protobuf keeps its bytes (one view per trace into the batch's buffer), decoded
 * spans are encoded.
 */
export function spanRows(spans: SpanData[] | SpanBatch, where: string): SpanRow[] {
  if (!Array.isArray(spans)) {
    const traces = spans.byTrace;
    if (traces === undefined) return spanRows(spans.spans(), where);
    return traces.traceIds.map((traceId, i) => ({
      traceId,
      count: traces.spanCounts[i],
      codec: CODEC_OTLP_PROTOBUF,
      bytes: traces.bytes.subarray(traces.offsets[i], traces.offsets[i + 1]),
    }));
  }
  const byTrace = new Map<string, SpanData[]>();
  for (const span of spans) {
    if (typeof span?.traceId !== 'string' || span.traceId === '') {
      throw new LedgerStoreError(`ledger ${where}: appendSpans: a span has no traceId (every span needs one)`);
    }
    const group = byTrace.get(span.traceId);
    if (group) group.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  return [...byTrace].map(([traceId, group]) => ({
    traceId,
    count: group.length,
    codec: CODEC_V8,
    bytes: encodeSpans(group),
  }));
}

export interface InteractionRow {
  interactionId: string;
  traceId: string;
  agentId: string;
  conversationId: string | null;
  endTimeMs: number;
  /**
   * The record as JSON: text, or its UTF-8 bytes (a record encoded on another thread comes as
   * bytes, which move between threads without being copied into a string).
   */
  json: string | Uint8Array;
  /** The same JSON compressed (`deflateRecords`), when the encoder was asked for it. */
  deflated?: Uint8Array;
  /** The conversation turn it is, when it is one. */
  turn?: TurnRow;
}

export function interactionRow(record: InteractionRecord, where: string): InteractionRow {
  for (const field of ['interactionId', 'traceId', 'agentId', 'endTime'] as const) {
    if (typeof record?.[field] !== 'string' || record[field] === '') {
      throw new LedgerStoreError(
        `ledger ${where}: putInteractions: record ${record?.interactionId ?? '?'} has no ${field}`,
      );
    }
  }
  const endTimeMs = parseIsoTime(record.endTime);
  if (endTimeMs === undefined) {
    throw new LedgerStoreError(
      `ledger ${where}: putInteractions: record ${record.interactionId} has endTime ` +
        `${JSON.stringify(record.endTime)} (expected ISO-8601)`,
    );
  }
  const turn = conversationTurnOf(record);
  return {
    interactionId: record.interactionId,
    traceId: record.traceId,
    agentId: record.agentId,
    conversationId: record.conversationId ?? null,
    endTimeMs,
    json: JSON.stringify(record),
    ...(turn ? { turn } : {}),
  };
}

export interface QueuedEvaluationRow {
  evaluationId: string;
  /** The subject key (`subjectKeyOf`): the `interaction_id` column. */
  interactionId: string;
  evaluatorId: string;
  evaluatorVersion: string;
  triggeredAtMs: number;
  /** The `QueuedEvaluation` as JSON, without what the store sets (attempts, startedAt, seq, progress). */
  json: string;
}

export function queueRow(evaluation: QueuedEvaluation, where: string): QueuedEvaluationRow {
  const id = requireText(evaluation?.evaluationId, 'evaluationId', '', where);
  const {
    attempts: _attempts,
    startedAt: _startedAt,
    seq: _seq,
    progress: _progress,
    signal: _signal,
    ...task
  } = evaluation;
  requireText(evaluation.interactionId, 'interactionId', id, where);
  return {
    evaluationId: id,
    interactionId: subjectKeyOf(evaluation, id, where),
    evaluatorId: requireText(evaluation.evaluatorId, 'evaluatorId', id, where),
    evaluatorVersion: requireText(evaluation.evaluatorVersion, 'evaluatorVersion', id, where),
    triggeredAtMs: isoMs(evaluation.triggeredAt, 'triggeredAt', id, where),
    json: JSON.stringify(task),
  };
}

/** A routed evaluation's row, with the evaluation id of the record it follows (`cause.record`). */
export function followUpRow(evaluation: QueuedEvaluation, where: string): QueuedEvaluationRow & { after: string } {
  const row = queueRow(evaluation, where);
  const after = evaluation.cause?.record?.evaluationId;
  return { ...row, after: requireText(after, 'cause.record.evaluationId', row.evaluationId, where) };
}

export interface EvaluationRecordRow {
  evaluationId: string;
  /** The subject key (`subjectKeyOf`): the `interaction_id` column. */
  interactionId: string;
  evaluatorId: string;
  evaluatorVersion: string;
  agentId: string;
  outcome: string;
  completedAtMs: number;
  json: string;
}

export function recordRow(record: EvaluationRecord, where: string): EvaluationRecordRow {
  const id = requireText(record?.evaluationId, 'evaluationId', '', where);
  const outcome = record.outcome?.type;
  if (outcome !== 'verdict' && outcome !== 'inconclusive' && outcome !== 'failed') {
    throw new LedgerStoreError(
      `ledger ${where}: evaluation ${id} has outcome type ` +
        `${JSON.stringify(outcome)} (expected verdict, inconclusive or failed)`,
    );
  }
  requireText(record.interactionId, 'interactionId', id, where);
  return {
    evaluationId: id,
    interactionId: subjectKeyOf(record, id, where),
    evaluatorId: requireText(record.evaluatorId, 'evaluatorId', id, where),
    evaluatorVersion: requireText(record.evaluatorVersion, 'evaluatorVersion', id, where),
    agentId: requireText(record.agentId, 'agentId', id, where),
    outcome,
    completedAtMs: isoMs(record.completedAt, 'completedAt', id, where),
    json: JSON.stringify(record),
  };
}

export function progressJson(progress: DurableProgress, seq: number, where: string): string {
  const what = `ledger ${where}: durable progress of evaluation #${seq}`;
  if (typeof progress?.step !== 'string' || progress.step === '') throw new LedgerStoreError(`${what} has no step`);
  if (!Number.isInteger(progress.completedSteps) || progress.completedSteps < 0)
    throw new LedgerStoreError(`${what} has completedSteps ${String(progress.completedSteps)}`);
  isoMs(progress.firstStartedAt, 'firstStartedAt', `#${seq}`, where);
  try {
    return JSON.stringify(progress);
  } catch (error) {
    throw new LedgerStoreError(`${what} cannot be saved as JSON: ${(error as Error).message}`, { cause: error });
  }
}

export function isoMs(value: string, field: string, id: string, where: string): number {
  const ms = typeof value === 'string' ? parseIsoTime(value) : undefined;
  if (ms === undefined)
    throw new LedgerStoreError(
      `ledger ${where}: evaluation ${id} has ${field} ${JSON.stringify(value)} (expected ISO-8601)`,
    );
  return ms;
}

export function requireText(value: unknown, field: string, id: string, where: string): string {
  if (typeof value !== 'string' || value === '')
    throw new LedgerStoreError(`ledger ${where}: evaluation ${id || '?'} has no ${field}`);
  return value;
}

/** A lease's owner and expiry, checked; the expiry in milliseconds. */
export function leaseRow(lease: EvaluationLease, where: string): { owner: string; untilMs: number } {
  return {
    owner: requireText(lease?.owner, 'lease owner', 'lease', where),
    untilMs: isoMs(lease.until, 'lease until', 'lease', where),
  };
}
