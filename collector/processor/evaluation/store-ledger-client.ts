/**
 * The `LedgerClient` evaluators get in the collector: reads of the collector's own ledger store,
 * with a small cache of interaction records. Several evaluators usually judge the same
 * interaction moments after it was recorded, so the evaluation processor puts the records it
 * takes in into the cache (`remember`) and most `getInteraction` calls never reach the store.
 *
 * Records are immutable once recorded, so the client hands out frozen records: one evaluator
 * cannot change what the next one reads (an attempt to throws, failing that evaluation).
 */
import { ConversationNotFoundError, InteractionNotFoundError } from '../../../src/evaluation/errors.ts';
import type { LedgerClient } from '../../../src/evaluation/ledger-client.ts';
import type { ConversationStore } from '../../ledger/conversation-store.ts';
import type { InteractionQuery, InteractionStore } from '../../ledger/interaction-store.ts';
import type { RecordedEvaluations } from '../../ledger/recorded-evaluations.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';

/** Interaction records kept; beyond it the oldest are dropped (they are read from the store again). */
export const DEFAULT_RECORD_CACHE_SIZE = 4_096;

export interface CachingLedgerClient extends LedgerClient {
  /** Puts records in the cache (frozen in place: the caller must be done changing them). */
  remember(records: readonly InteractionRecord[]): void;
}

export function createStoreLedgerClient(
  store: InteractionStore & RecordedEvaluations & Pick<ConversationStore, 'getConversation'>,
  options: { cacheSize?: number } = {},
): CachingLedgerClient {
  const cacheSize = options.cacheSize ?? DEFAULT_RECORD_CACHE_SIZE;
  const cache = new Map<string, InteractionRecord>();

  function keep(record: InteractionRecord): InteractionRecord {
    const frozen = deepFreeze(record);
    cache.delete(record.interactionId);
    cache.set(record.interactionId, frozen);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    return frozen;
  }

  async function find(interactionId: string): Promise<InteractionRecord | undefined> {
    const cached = cache.get(interactionId);
    if (cached) return cached;
    const stored = await store.getInteraction(interactionId);
    return stored && keep(stored);
  }

  return {
    remember(records) {
      for (const record of records) keep(record);
    },
    async getInteraction(interactionId) {
      const record = await find(interactionId);
      if (!record) throw new InteractionNotFoundError(interactionId);
      return record;
    },
    findInteraction: find,
    getEvaluations: (interactionId) => store.getEvaluations(interactionId),
    async getConversation(conversationId, agentId, options = {}) {
      const conversation = await store.getConversation(conversationId, agentId, options);
      if (!conversation) throw new ConversationNotFoundError(conversationId, agentId, options.revision);
      // Its interactions are immutable records: served from (and kept in) the cache like the others.
      conversation.interactions = conversation.interactions.map(
        (record) => cache.get(record.interactionId) ?? keep(record),
      );
      return deepFreeze(conversation);
    },
    listInteractions(query = {}) {
      const storeQuery: InteractionQuery = {};
      if (query.agentId !== undefined) storeQuery.agentId = query.agentId;
      if (query.conversationId !== undefined) storeQuery.conversationId = query.conversationId;
      if (query.since !== undefined)
        storeQuery.since = query.since instanceof Date ? query.since.toISOString() : query.since;
      if (query.limit !== undefined) storeQuery.limit = query.limit;
      return store.listInteractions(storeQuery);
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
