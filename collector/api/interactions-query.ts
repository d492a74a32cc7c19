/**
 * Reads `GET /api/v1/interactions` query parameters into an `InteractionQuery`. Every problem is
 * an `ApiQueryError` naming the parameter, answered as 400. `since` is an ISO-8601 time or a
 * duration back from now (`30m`, `24h`, `7d`, `1h30m`), which the CLI checks with the same function.
 */
import { parseIsoTime } from '../ledger/sqlite/interaction-query.ts';
import type { InteractionQuery } from '../ledger/store.ts';

export const MAX_LIMIT = 1000;

const DURATION_PART = /(\d+)(ms|s|m|h|d|w)/y;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const PARAMETERS = ['agent', 'conversation', 'since', 'limit'] as const;

export class ApiQueryError extends Error {
  readonly parameter: string;
  constructor(parameter: string, message: string) {
    super(message);
    this.name = 'ApiQueryError';
    this.parameter = parameter;
  }
}

/** Milliseconds of a duration like `30m`, `24h` or `1h30m`, or undefined when `value` is not one. */
export function parseDuration(value: string): number | undefined {
  if (value === '') return undefined;
  let total = 0;
  for (let index = 0; index < value.length; index = DURATION_PART.lastIndex) {
    DURATION_PART.lastIndex = index;
    const match = DURATION_PART.exec(value);
    if (!match) return undefined;
    total += Number(match[1]) * UNIT_MS[match[2]];
  }
  return total;
}

/** `since` as an ISO-8601 time: given as one, or `now` minus a duration. Undefined when neither. */
export function resolveSince(value: string, now: number): string | undefined {
  const duration = parseDuration(value);
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
