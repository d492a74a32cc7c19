/**
 * Normalizes an `InteractionQuery` the same way for every store: the default and maximum limit,
 * and `since` as epoch milliseconds. Bad values throw a `LedgerQueryError` naming the field.
 */
import type { InteractionQuery } from '../store.ts';
import { LedgerQueryError } from './errors.ts';

export const DEFAULT_INTERACTION_LIMIT = 100;
export const MAX_INTERACTION_LIMIT = 1000;

/** ISO-8601 calendar date, optionally with a time and an offset (what `Date.parse` reads reliably). */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

export interface NormalizedInteractionQuery {
  agentId?: string;
  conversationId?: string;
  /** Epoch milliseconds; only interactions whose end time is at or after it. */
  sinceMs?: number;
  limit: number;
}

/** Epoch milliseconds of an ISO-8601 time, or undefined when it is not one. */
export function parseIsoTime(value: string): number | undefined {
  if (!ISO_8601.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function normalizeInteractionQuery(query: InteractionQuery): NormalizedInteractionQuery {
  const normalized: NormalizedInteractionQuery = { limit: DEFAULT_INTERACTION_LIMIT };
  if (query.agentId !== undefined) normalized.agentId = query.agentId;
  if (query.conversationId !== undefined) normalized.conversationId = query.conversationId;
  if (query.since !== undefined) {
    const sinceMs = parseIsoTime(query.since);
    if (sinceMs === undefined) {
      throw new LedgerQueryError(
        'since',
        `ledger query: since must be an ISO-8601 time (got ${JSON.stringify(query.since)})`,
      );
    }
    normalized.sinceMs = sinceMs;
  }
  if (query.limit !== undefined) {
    if (!Number.isInteger(query.limit) || query.limit < 1) {
      throw new LedgerQueryError('limit', `ledger query: limit must be a positive integer (got ${query.limit})`);
    }
    normalized.limit = Math.min(query.limit, MAX_INTERACTION_LIMIT);
  }
  return normalized;
}
