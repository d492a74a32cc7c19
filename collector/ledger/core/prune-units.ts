/**
 * What both stores share to list and prune retention units (ledger-retention.ts): the two streams
 * a page of units merges (interactions that are no turn, by end time; conversations that are over,
 * by last activity), the page cursor, and the evaluation keys of a conversation's revisions.
 */
import { LedgerQueryError, LedgerStoreError } from '../errors.ts';
import type { PrunableQuery, PruneUnit } from '../ledger-retention.ts';
import { parseIsoTime } from '../interaction-query.ts';
import { conversationSubjectKey } from './rows.ts';

/** Where each stream of a page stopped: the last interaction and the last conversation listed. */
export interface PruneCursor {
  interaction?: { endMs: number; interactionId: string };
  conversation?: { endMs: number; conversationId: string; agentId: string };
}

export interface NormalizedPrunableQuery {
  /** Epoch ms; `Number.MAX_SAFE_INTEGER` without a cutoff. */
  beforeMs: number;
  cursor: PruneCursor;
  limit: number;
}

export function normalizePrunableQuery(query: PrunableQuery): NormalizedPrunableQuery {
  let beforeMs = Number.MAX_SAFE_INTEGER;
  if (query.before !== undefined) {
    const ms = parseIsoTime(query.before);
    if (ms === undefined)
      throw new LedgerQueryError('before', `ledger query: before must be an ISO-8601 time (got ${query.before})`);
    beforeMs = ms;
  }
  if (!Number.isInteger(query.limit) || query.limit < 1)
    throw new LedgerQueryError('limit', `ledger query: limit must be a positive integer (got ${query.limit})`);
  return { beforeMs, cursor: decodeCursor(query.cursor), limit: query.limit };
}

function decodeCursor(cursor: string | undefined): PruneCursor {
  if (cursor === undefined) return {};
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as PruneCursor;
    if (typeof parsed === 'object' && parsed !== null) return parsed;
  } catch {
    // Reported below.
  }
  throw new LedgerQueryError('cursor', `ledger query: cursor ${JSON.stringify(cursor)} is not one this store gave`);
}

/** The first rows of each stream after the cursor, as the stores read them. */
export interface StreamRows {
  interactions: Array<{ interactionId: string; agentId: string; endMs: number }>;
  conversations: Array<{ conversationId: string; agentId: string; endMs: number; interactionIds: string[] }>;
}

/**
 * One page: the two streams merged oldest first (interactions before conversations that ended in
 * the same millisecond), cut at `limit`; the cursor moves past what the page holds. A stream
 * that returned fewer rows than `limit` is exhausted past them.
 */
export function mergePage(
  rows: StreamRows,
  query: NormalizedPrunableQuery,
): { units: PruneUnit[]; nextCursor?: string } {
  const units: PruneUnit[] = [];
  const cursor: PruneCursor = { ...query.cursor };
  let i = 0;
  let c = 0;
  while (units.length < query.limit) {
    const interaction = rows.interactions[i];
    const conversation = rows.conversations[c];
    if (!interaction && !conversation) break;
    if (interaction && (!conversation || interaction.endMs <= conversation.endMs)) {
      units.push({
        kind: 'interaction',
        interactionId: interaction.interactionId,
        agentId: interaction.agentId,
        endTime: new Date(interaction.endMs).toISOString(),
      });
      cursor.interaction = { endMs: interaction.endMs, interactionId: interaction.interactionId };
      i++;
    } else if (conversation) {
      units.push({
        kind: 'conversation',
        conversationId: conversation.conversationId,
        agentId: conversation.agentId,
        endTime: new Date(conversation.endMs).toISOString(),
        interactionIds: conversation.interactionIds,
      });
      cursor.conversation = {
        endMs: conversation.endMs,
        conversationId: conversation.conversationId,
        agentId: conversation.agentId,
      };
      c++;
    }
  }
  const more =
    i < rows.interactions.length ||
    c < rows.conversations.length ||
    rows.interactions.length === query.limit ||
    rows.conversations.length === query.limit;
  return more ? { units, nextCursor: Buffer.from(JSON.stringify(cursor)).toString('base64url') } : { units };
}

/**
 * Where the interaction stream's read ends (exclusive): a page full of conversations holds no
 * interaction that ended after the last of them, so the read stops there. Without that bound it
 * walks every interaction up to the cutoff looking for ones that are no turn — the whole ledger,
 * page after page, when every interaction is a conversation's turn.
 */
export function interactionReadEnd(query: NormalizedPrunableQuery, conversations: Array<{ endMs: number }>): number {
  const last = conversations.at(-1);
  return conversations.length >= query.limit && last ? Math.min(query.beforeMs, last.endMs + 1) : query.beforeMs;
}

/** The subject keys of revisions 1 to `revision` of a conversation: its evaluations' keys. */
export function conversationEvaluationKeys(conversationId: string, agentId: string, revision: number): string[] {
  return Array.from({ length: revision }, (_, index) =>
    conversationSubjectKey({ conversationId, agentId, revision: index + 1 }),
  );
}

/** The cursor's position in one stream, as SQL parameters; before the first row without one. */
export function interactionAfter(cursor: PruneCursor): [number, string] {
  return cursor.interaction ? [cursor.interaction.endMs, cursor.interaction.interactionId] : [-1, ''];
}

export function conversationAfter(cursor: PruneCursor): [number, string, string] {
  const at = cursor.conversation;
  return at ? [at.endMs, at.conversationId, at.agentId] : [-1, '', ''];
}

/** Epoch ms of a retention call's ISO-8601 time, or a `LedgerStoreError` naming the call and field. */
export function retentionTimeMs(value: string, field: string, call: string, where: string): number {
  const ms = typeof value === 'string' ? parseIsoTime(value) : undefined;
  if (ms === undefined)
    throw new LedgerStoreError(`ledger ${where}: ${call}: ${field} ${JSON.stringify(value)} is not an ISO-8601 time`);
  return ms;
}
