/**
 * Reads the conversation routes' query parameters: `GET /api/v1/conversations` (`agent`, `since`,
 * `open`, `limit`, with the interaction list's grammar) and the one-conversation routes, which take
 * `agent` (and, for the evaluations, `include`). Every problem is an `ApiQueryError` naming the
 * parameter, answered as 400.
 */
import type { ConversationQuery } from '../ledger/conversation-store.ts';
import { ApiQueryError, MAX_LIMIT, parseLimit, resolveSince } from './interactions-query.ts';

const LIST_PARAMETERS = ['agent', 'since', 'open', 'limit'] as const;
const ONE_PARAMETERS = ['agent'] as const;
const EVALUATIONS_PARAMETERS = ['agent', 'include'] as const;

function checkKeys(params: URLSearchParams, allowed: readonly string[]): void {
  for (const key of new Set(params.keys())) {
    if (!allowed.includes(key)) {
      throw new ApiQueryError(key, `unknown query parameter "${key}" (expected ${allowed.join(', ')})`);
    }
    if (params.getAll(key).length > 1) throw new ApiQueryError(key, `query parameter "${key}" is given more than once`);
  }
}

export function parseConversationsQuery(params: URLSearchParams, now: number): ConversationQuery {
  checkKeys(params, LIST_PARAMETERS);
  // An empty value means "no filter", as for interactions.
  const value = (key: (typeof LIST_PARAMETERS)[number]) => params.get(key) || undefined;
  const query: ConversationQuery = {};
  const agent = value('agent');
  if (agent !== undefined) query.agentId = agent;
  const since = value('since');
  if (since !== undefined) {
    const resolved = resolveSince(since, now);
    if (resolved === undefined) {
      throw new ApiQueryError(
        'since',
        `since must be an ISO-8601 time or a duration such as 30m, 24h or 7d (got "${since}")`,
      );
    }
    query.since = resolved;
  }
  const open = value('open');
  if (open !== undefined) {
    if (open !== 'true' && open !== 'false')
      throw new ApiQueryError('open', `open must be true or false (got "${open}")`);
    query.open = open === 'true';
  }
  const limit = value('limit');
  if (limit !== undefined) {
    const parsed = parseLimit(limit);
    if (parsed === undefined)
      throw new ApiQueryError('limit', `limit must be an integer from 1 to ${MAX_LIMIT} (got "${limit}")`);
    query.limit = parsed;
  }
  return query;
}

/** The `agent` of a one-conversation route, or undefined when left out (or empty). */
export function parseAgentParameter(params: URLSearchParams): string | undefined {
  checkKeys(params, ONE_PARAMETERS);
  return params.get('agent') || undefined;
}

/**
 * The evaluations route's parameters: `agent`, and `include=interactions` to add the evaluations
 * of the conversation's interactions to the conversation's own.
 */
export function parseEvaluationsParameters(params: URLSearchParams): { agent?: string; interactions: boolean } {
  checkKeys(params, EVALUATIONS_PARAMETERS);
  const include = params.get('include') || undefined;
  if (include !== undefined && include !== 'interactions')
    throw new ApiQueryError('include', `include must be interactions (got "${include}")`);
  const agent = params.get('agent') || undefined;
  return { ...(agent !== undefined ? { agent } : {}), interactions: include === 'interactions' };
}
