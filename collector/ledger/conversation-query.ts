/**
 * Reads conversation queries the same way for every store, as `interaction-query.ts` does for
 * interactions: the same limits, `since` grammar, cursors and error messages.
 */
import type { ConversationQuery, ConversationRevisionPageQuery } from './conversation-store.ts';
import { LedgerQueryError } from './errors.ts';
import { normalizeLimit, parseIsoTime } from './interaction-query.ts';

export interface NormalizedConversationQuery {
  agentId?: string;
  /** Epoch milliseconds: only conversations active at or after it. */
  sinceMs?: number;
  open?: boolean;
  limit: number;
}

export interface NormalizedRevisionPageQuery {
  agentId?: string;
  /** Epoch milliseconds: only revisions that ended at or after it. */
  sinceMs?: number;
  /** The page starts after the revision closed at this position (0: the first). */
  after: number;
  limit: number;
}

export function normalizeConversationQuery(query: ConversationQuery): NormalizedConversationQuery {
  const normalized: NormalizedConversationQuery = { limit: normalizeLimit(query.limit) };
  if (query.agentId !== undefined) normalized.agentId = query.agentId;
  if (query.open !== undefined) normalized.open = query.open;
  const sinceMs = sinceOf(query.since);
  if (sinceMs !== undefined) normalized.sinceMs = sinceMs;
  return normalized;
}

export function normalizeRevisionPageQuery(query: ConversationRevisionPageQuery): NormalizedRevisionPageQuery {
  const after = query.cursor === undefined ? 0 : Number(query.cursor);
  if (!Number.isSafeInteger(after) || after < 0) {
    throw new LedgerQueryError(
      'cursor',
      `ledger query: cursor ${JSON.stringify(query.cursor)} is not one this store gave`,
    );
  }
  const normalized: NormalizedRevisionPageQuery = { after, limit: normalizeLimit(query.limit) };
  if (query.agentId !== undefined) normalized.agentId = query.agentId;
  const sinceMs = sinceOf(query.since);
  if (sinceMs !== undefined) normalized.sinceMs = sinceMs;
  return normalized;
}

/** `countConversationRevisions`' query: the filters only. */
export function normalizeRevisionCountQuery(query: { agentId?: string; since?: string }): {
  agentId?: string;
  sinceMs?: number;
} {
  const sinceMs = sinceOf(query.since);
  return {
    ...(query.agentId !== undefined ? { agentId: query.agentId } : {}),
    ...(sinceMs !== undefined ? { sinceMs } : {}),
  };
}

function sinceOf(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const ms = parseIsoTime(since);
  if (ms === undefined) {
    throw new LedgerQueryError('since', `ledger query: since must be an ISO-8601 time (got ${JSON.stringify(since)})`);
  }
  return ms;
}
