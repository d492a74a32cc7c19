/**
 * What both stores share to keep reviews: the checks and encoding of an opened review, the row
 * read back as a `ReviewRecord`, a list query read the same way (limit, status, the page cursor),
 * and the status a recorded outcome gives its review.
 */
import type { EvaluationOutcomeType, EvaluationRecord } from '../../../src/model/records.ts';
import { LedgerQueryError, LedgerStoreError } from '../errors.ts';
import { parseIsoTime } from '../interaction-query.ts';
import {
  DEFAULT_REVIEW_LIMIT,
  MAX_REVIEW_LIMIT,
  REVIEW_STATUSES,
  type OpenReview,
  type ReviewQuery,
  type ReviewRecord,
  type ReviewStatus,
} from '../review-store.ts';

/** The columns of an opened review, checked. */
export interface ReviewRow {
  reviewId: string;
  entryId: string;
  agentId: string;
  interactionId: string;
  conversationId: string | null;
  createdAtMs: number;
  /** What is kept as JSON: subject, reason, routed verdict. */
  json: string;
}

export function reviewRow(review: OpenReview, where: string): ReviewRow {
  const id = text(review?.reviewId, 'reviewId', '?', where);
  const createdAtMs = typeof review.createdAt === 'string' ? parseIsoTime(review.createdAt) : undefined;
  if (createdAtMs === undefined)
    throw new LedgerStoreError(`ledger ${where}: review ${id} has createdAt ${JSON.stringify(review.createdAt)}`);
  const subject = review.subject ?? { kind: 'interaction' };
  const details = {
    subject,
    reason: review.reason,
    ...(review.routedVerdict ? { routedVerdict: review.routedVerdict } : {}),
  };
  return {
    reviewId: id,
    entryId: text(review.entryId, 'entryId', id, where),
    agentId: text(review.agentId, 'agentId', id, where),
    interactionId: text(review.interactionId, 'interactionId', id, where),
    conversationId: subject.kind === 'conversation' ? subject.conversationId : null,
    createdAtMs,
    json: JSON.stringify(details),
  };
}

/** A row as both stores read it (JSON columns as text or parsed). */
export interface StoredReview {
  review_id: string;
  entry_id: string;
  agent_id: string;
  interaction_id: string;
  status: string;
  created_at_ms: number | string;
  due_at_ms: number | string | null;
  claimed_by: string | null;
  claimed_until_ms: number | string | null;
  completed_at_ms: number | string | null;
  review: string | object;
  record: string | object | null;
}

/** The record of a stored review; `nowMs` tells a live claim (status `claimed`) from a lapsed one. */
export function reviewFromRow(row: StoredReview, nowMs: number): ReviewRecord {
  const details = (typeof row.review === 'string' ? JSON.parse(row.review) : row.review) as Pick<
    OpenReview,
    'subject' | 'reason' | 'routedVerdict'
  >;
  const iso = (ms: number | string) => new Date(Number(ms)).toISOString();
  const claimLive = row.claimed_by !== null && row.claimed_until_ms !== null && Number(row.claimed_until_ms) > nowMs;
  const stored = row.status as ReviewStatus;
  const review: ReviewRecord = {
    reviewId: row.review_id,
    entryId: row.entry_id,
    agentId: row.agent_id,
    interactionId: row.interaction_id,
    subject: details.subject,
    reason: details.reason,
    ...(details.routedVerdict ? { routedVerdict: details.routedVerdict } : {}),
    createdAt: iso(row.created_at_ms),
    status: stored === 'open' && claimLive ? 'claimed' : stored,
  };
  if (row.due_at_ms !== null) review.dueAt = iso(row.due_at_ms);
  if (stored === 'open' && claimLive) review.claim = { reviewer: row.claimed_by!, until: iso(row.claimed_until_ms!) };
  if (row.completed_at_ms !== null) review.completedAt = iso(row.completed_at_ms);
  if (row.record !== null)
    review.record = (typeof row.record === 'string' ? JSON.parse(row.record) : row.record) as EvaluationRecord;
  return review;
}

/** The stored status a recorded outcome gives its review: a verdict or a failure ends it, inconclusive expires it. */
export function closedStatus(outcome: EvaluationOutcomeType | string): 'done' | 'expired' {
  return outcome === 'inconclusive' ? 'expired' : 'done';
}

export interface NormalizedReviewQuery {
  status: ReviewStatus;
  agentId?: string;
  nowMs: number;
  limit: number;
  /** Start after this (order time, review id). */
  after?: { ms: number; id: string };
}

export function normalizeReviewQuery(query: ReviewQuery): NormalizedReviewQuery {
  const status = query.status ?? 'open';
  if (!REVIEW_STATUSES.includes(status))
    throw new LedgerQueryError('status', `review query: status must be one of ${REVIEW_STATUSES.join(', ')}`);
  const nowMs = parseIsoTime(query.now);
  if (nowMs === undefined) throw new LedgerQueryError('now', `review query: now must be an ISO-8601 time`);
  const limit = query.limit ?? DEFAULT_REVIEW_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new LedgerQueryError('limit', `review query: limit must be a positive integer (got ${limit})`);
  const normalized: NormalizedReviewQuery = { status, nowMs, limit: Math.min(limit, MAX_REVIEW_LIMIT) };
  if (query.agentId !== undefined) normalized.agentId = query.agentId;
  if (query.cursor !== undefined) normalized.after = decodeCursor(query.cursor);
  return normalized;
}

/** Cursors name the last row of a page: its order time and id. */
export function reviewCursor(row: { sort_ms: number | string; review_id: string }): string {
  return Buffer.from(JSON.stringify([Number(row.sort_ms), row.review_id])).toString('base64url');
}

function decodeCursor(cursor: string): { ms: number; id: string } {
  try {
    const [ms, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Number.isSafeInteger(ms) && typeof id === 'string') return { ms: ms as number, id };
  } catch {
    // Reported below.
  }
  throw new LedgerQueryError('cursor', `review query: cursor ${JSON.stringify(cursor)} is not one this store gave`);
}

function text(value: unknown, field: string, id: string, where: string): string {
  if (typeof value !== 'string' || value === '')
    throw new LedgerStoreError(`ledger ${where}: review ${id} has no ${field}`);
  return value;
}
