/**
 * Reads `GET /api/v1/interactions` query parameters into an `InteractionQuery`. Every problem is
 * an `ApiQueryError` naming the parameter, answered as 400. `since` is an ISO-8601 time (the
 * ledger's time grammar) or a duration back from now (`30m`, `24h`, `7d`, `1h30m`: Evalon's
 * duration grammar), which the CLI checks with the same function.
 */
import { parseDuration } from '../../src/config/duration.ts';
import { MAX_INTERACTION_LIMIT, parseIsoTime } from '../ledger/interaction-query.ts';
import type { InteractionQuery } from '../ledger/interaction-store.ts';

/** The most interactions one query returns: the ledger's maximum, refused above rather than cut. */
export const MAX_LIMIT = MAX_INTERACTION_LIMIT;

/** A bare number is no `since`: milliseconds back from now is never what was meant (hours? a year?). */
const BARE_NUMBER = /^\s*[\d.]+\s*$/;
const PARAMETERS = ['agent', 'conversation', 'since', 'limit'] as const;

export class ApiQueryError extends Error {
  readonly parameter: string;
  constructor(parameter: string, message: string) {
    super(message);
    this.name = 'ApiQueryError';
    this.parameter = parameter;
  }
}

/** `since` as an ISO-8601 time: given as one, or `now` minus a duration. Undefined when neither. */
export function resolveSince(value: string, now: number): string | undefined {
  const duration = BARE_NUMBER.test(value) ? undefined : parseDuration(value);
  if (duration !== undefined) return new Date(now - duration).toISOString();
  const ms = parseIsoTime(value);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/** A limit given as text: an integer from 1 to MAX_LIMIT, or undefined when it is not one. */
export function parseLimit(value: string): number | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  const limit = Number(value);
  return limit >= 1 && limit <= MAX_LIMIT ? limit : undefined;
}

export function parseInteractionsQuery(params: URLSearchParams, now: number): InteractionQuery {
  for (const key of new Set(params.keys())) {
    if (!(PARAMETERS as readonly string[]).includes(key)) {
      throw new ApiQueryError(key, `unknown query parameter "${key}" (expected ${PARAMETERS.join(', ')})`);
    }
    if (params.getAll(key).length > 1) throw new ApiQueryError(key, `query parameter "${key}" is given more than once`);
  }
  // An empty value means "no filter": clients that fill a URL template send `agent=&since=`.
  const value = (key: (typeof PARAMETERS)[number]) => params.get(key) || undefined;
  const query: InteractionQuery = {};
  const agent = value('agent');
  if (agent !== undefined) query.agentId = agent;
  const conversation = value('conversation');
  if (conversation !== undefined) query.conversationId = conversation;
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
  const limit = value('limit');
  if (limit !== undefined) {
    const parsed = parseLimit(limit);
    if (parsed === undefined)
      throw new ApiQueryError('limit', `limit must be an integer from 1 to ${MAX_LIMIT} (got "${limit}")`);
    query.limit = parsed;
  }
  return query;
}
