/**
 * What the PostgreSQL store checks and encodes before it writes: spans grouped by trace and
 * encoded (span-codec.ts), records checked for the fields the tables need, and many byte strings
 * packed into one parameter. Messages match the SQLite store's, so the contract reads alike.
 */
import type { EvaluationRecord } from '../../../src/evaluation/evaluation-record.ts';
import type { InteractionRecord } from '../../model/interaction.ts';
import type { SpanData } from '../../model/span.ts';
import type { DurableProgress, QueuedEvaluation } from '../store.ts';
import { LedgerStoreError } from '../sqlite/errors.ts';
import { parseIsoTime } from '../sqlite/interaction-query.ts';
import { CODEC_V8, encodeSpans } from '../sqlite/span-codec.ts';

export interface SpanRow {
  traceId: string;
  count: number;
  codec: number;
  bytes: Uint8Array;
}

/** One row per trace of the batch, its spans encoded together in their order of arrival. */
export function spanRows(spans: SpanData[], where: string): SpanRow[] {
  const byTrace = new Map<string, SpanData[]>();
  for (const span of spans) {
    if (typeof span?.traceId !== 'string' || span.traceId === '') {
      throw new LedgerStoreError(`ledger ${where}: appendSpans: a span has no traceId (every span needs one)`);
    }
    const group = byTrace.get(span.traceId);
    if (group) group.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  return [...byTrace].map(([traceId, group]) => ({ traceId, count: group.length, codec: CODEC_V8, bytes: encodeSpans(group) }));
}

/**
 * Byte strings as one `bytea` parameter plus 1-based offsets and lengths: sent in binary (an array
 * of bytea would travel as hex text), split again by `substring` on the server.
 */
export function packBytes(parts: Uint8Array[]): { blob: Buffer; offsets: number[]; lengths: number[] } {
  const offsets: number[] = [];
  const lengths: number[] = [];
  let at = 1;
  for (const part of parts) {
    offsets.push(at);
    lengths.push(part.byteLength);
    at += part.byteLength;
  }
  return { blob: Buffer.concat(parts), offsets, lengths };
}

export interface InteractionRow {
  interactionId: string;
  traceId: string;
  agentId: string;
  conversationId: string | null;
  endTimeMs: number;
  json: string;
}

export function interactionRow(record: InteractionRecord, where: string): InteractionRow {
  for (const field of ['interactionId', 'traceId', 'agentId', 'endTime'] as const) {
    if (typeof record?.[field] !== 'string' || record[field] === '') {
      throw new LedgerStoreError(`ledger ${where}: putInteractions: record ${record?.interactionId ?? '?'} has no ${field}`);
    }
  }
  const endTimeMs = parseIsoTime(record.endTime);
  if (endTimeMs === undefined) {
    throw new LedgerStoreError(
      `ledger ${where}: putInteractions: record ${record.interactionId} has endTime ${JSON.stringify(record.endTime)} (expected ISO-8601)`,
    );
  }
  return {
    interactionId: record.interactionId,
    traceId: record.traceId,
    agentId: record.agentId,
    conversationId: record.conversationId ?? null,
    endTimeMs,
    json: JSON.stringify(record),
  };
}

export interface QueuedEvaluationRow {
  evaluationId: string;
  interactionId: string;
  evaluatorId: string;
  evaluatorVersion: string;
  triggeredAtMs: number;
  /** The `QueuedEvaluation` as JSON, without what the store sets (attempts, startedAt, seq, progress). */
  json: string;
}

export function queueRow(evaluation: QueuedEvaluation, where: string): QueuedEvaluationRow {
  const id = requireText(evaluation?.evaluationId, 'evaluationId', '', where);
  const { attempts: _attempts, startedAt: _startedAt, seq: _seq, progress: _progress, ...task } = evaluation;
  return {
    evaluationId: id,
    interactionId: requireText(evaluation.interactionId, 'interactionId', id, where),
    evaluatorId: requireText(evaluation.evaluatorId, 'evaluatorId', id, where),
    evaluatorVersion: requireText(evaluation.evaluatorVersion, 'evaluatorVersion', id, where),
    triggeredAtMs: isoMs(evaluation.triggeredAt, 'triggeredAt', id, where),
    json: JSON.stringify(task),
  };
}

export interface EvaluationRecordRow {
  evaluationId: string;
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
    throw new LedgerStoreError(`ledger ${where}: evaluation ${id} has outcome type ${JSON.stringify(outcome)} (expected verdict, inconclusive or failed)`);
  }
  return {
    evaluationId: id,
    interactionId: requireText(record.interactionId, 'interactionId', id, where),
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
  if (!Number.isInteger(progress.completedSteps) || progress.completedSteps < 0) throw new LedgerStoreError(`${what} has completedSteps ${String(progress.completedSteps)}`);
  isoMs(progress.firstStartedAt, 'firstStartedAt', `#${seq}`, where);
  try {
    return JSON.stringify(progress);
  } catch (error) {
    throw new LedgerStoreError(`${what} cannot be saved as JSON: ${(error as Error).message}`, { cause: error });
  }
}

export function isoMs(value: string, field: string, id: string, where: string): number {
  const ms = typeof value === 'string' ? parseIsoTime(value) : undefined;
  if (ms === undefined) throw new LedgerStoreError(`ledger ${where}: evaluation ${id} has ${field} ${JSON.stringify(value)} (expected ISO-8601)`);
  return ms;
}

function requireText(value: unknown, field: string, id: string, where: string): string {
  if (typeof value !== 'string' || value === '') throw new LedgerStoreError(`ledger ${where}: evaluation ${id || '?'} has no ${field}`);
  return value;
}
