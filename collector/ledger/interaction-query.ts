/**
 * Reads interaction queries the same way for every store: the default and maximum limit, `since`
 * as epoch milliseconds, the filters, and a page's cursor. Bad values throw a `LedgerQueryError`
 * naming the field, with one message whatever the store. The HTTP API checks its parameters with
 * the same time grammar and limit (`collector/api/interactions-query.ts`).
 */
import { LedgerQueryError } from './errors.ts';

export interface InteractionQuery {
  agentId?: string;
  conversationId?: string;
  /** Only interactions that ended at or after this ISO-8601 time. */
  since?: string;
  /** Newest first; default 100, at most 1000. */
  limit?: number;
}

/** `pageInteractions`: stored interactions oldest first, in pages (backfill reads them all). */
export interface InteractionPageQuery {
  agentId?: string;
  /** Only interactions that ended at or after this ISO-8601 time. */
  since?: string;
  /** From the previous page's `nextCursor`; absent for the first page. */
  cursor?: string;
  /** Default 100, at most 1000. */
  limit?: number;
}

export const DEFAULT_INTERACTION_LIMIT = 100;
export const MAX_INTERACTION_LIMIT = 1000;

/** ISO-8601 calendar date, optionally with a time and an offset (what `Date.parse` reads reliably). */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** The filters of `listInteractions`, `pageInteractions` and `countInteractions`, checked. */
export interface InteractionFilters {
  agentId?: string;
  conversationId?: string;
  /** Epoch milliseconds; only interactions whose end time is at or after it. */
  sinceMs?: number;
}

export interface NormalizedInteractionQuery extends InteractionFilters {
  limit: number;
}

export interface NormalizedPageQuery extends InteractionFilters {
  /** The cursor as a number: the page starts after the interaction recorded at this position (0: the first). */
  after: number;
  limit: number;
}

/** Epoch milliseconds of an ISO-8601 time, or undefined when it is not one. */
export function parseIsoTime(value: string): number | undefined {
  if (!ISO_8601.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function normalizeInteractionQuery(query: InteractionQuery): NormalizedInteractionQuery {
  const filters = normalizeFilters(query);
  return { ...filters, limit: normalizeLimit(query.limit) };
}

/** `countInteractions`' query: the filters only. */
export function normalizeCountQuery(query: { agentId?: string; since?: string }): InteractionFilters {
  return normalizeFilters(query);
}

/** `pageInteractions`' query. Cursors are positions in the order of recording, given back as text. */
export function normalizePageQuery(query: InteractionPageQuery): NormalizedPageQuery {
  const limit = normalizeLimit(query.limit);
  const after = query.cursor === undefined ? 0 : Number(query.cursor);
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new LedgerQueryError(
      'cursor',
      `ledger query: cursor ${JSON.stringify(query.cursor)} is not one this store gave`,
    );
  }
  return { ...normalizeFilters(query), after, limit };
}

function normalizeFilters(query: { agentId?: string; conversationId?: string; since?: string }): InteractionFilters {
  const filters: InteractionFilters = {};
  if (query.agentId !== undefined) filters.agentId = query.agentId;
  if (query.conversationId !== undefined) filters.conversationId = query.conversationId;
  if (query.since !== undefined) {
    const sinceMs = parseIsoTime(query.since);
    if (sinceMs === undefined) {
      throw new LedgerQueryError(
        'since',
        `ledger query: since must be an ISO-8601 time (got ${JSON.stringify(query.since)})`,
      );
    }
    filters.sinceMs = sinceMs;
  }
  return filters;
}

/** The default when absent; a larger limit than the maximum is cut to it (not refused). */
export function normalizeLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_INTERACTION_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new LedgerQueryError('limit', `ledger query: limit must be a positive integer (got ${limit})`);
  }
  return Math.min(limit, MAX_INTERACTION_LIMIT);
}
