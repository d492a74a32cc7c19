/**
 * Reads `GET /api/v1/reviews` query parameters: `status` (open, claimed, done or expired; default
 * open), `agent`, `limit` (1 to 1000, default 50) and `cursor` (the previous page's `nextCursor`).
 * Every problem is an `ApiQueryError` naming the parameter, answered as 400.
 */
import { REVIEW_STATUSES, type ReviewStatus } from '../ledger/review-store.ts';
import { ApiQueryError, parseLimit, MAX_LIMIT } from './interactions-query.ts';

const PARAMETERS = ['status', 'agent', 'limit', 'cursor'] as const;

export interface ReviewsListQuery {
  status: ReviewStatus;
  agentId?: string;
  limit?: number;
  cursor?: string;
}

export function parseReviewsQuery(params: URLSearchParams): ReviewsListQuery {
  for (const key of new Set(params.keys())) {
    if (!(PARAMETERS as readonly string[]).includes(key))
      throw new ApiQueryError(key, `unknown query parameter "${key}" (expected ${PARAMETERS.join(', ')})`);
    if (params.getAll(key).length > 1) throw new ApiQueryError(key, `query parameter "${key}" is given more than once`);
  }
  const value = (key: (typeof PARAMETERS)[number]) => params.get(key) || undefined;
  const status = value('status') ?? 'open';
  if (!(REVIEW_STATUSES as readonly string[]).includes(status))
    throw new ApiQueryError('status', `status must be one of ${REVIEW_STATUSES.join(', ')} (got "${status}")`);
  const query: ReviewsListQuery = { status: status as ReviewStatus };
  const agent = value('agent');
  if (agent !== undefined) query.agentId = agent;
  const limit = value('limit');
  if (limit !== undefined) {
    const parsed = parseLimit(limit);
    if (parsed === undefined)
      throw new ApiQueryError('limit', `limit must be an integer from 1 to ${MAX_LIMIT} (got "${limit}")`);
    query.limit = parsed;
  }
  const cursor = value('cursor');
  if (cursor !== undefined) query.cursor = cursor;
  return query;
}
