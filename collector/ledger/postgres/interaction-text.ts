/**
 * Interaction records as the PostgreSQL ledger keeps them: their JSON as `text`, parsed here when
 * read. The server does not check the JSON on the way in (schema.ts, version 7): every record is
 * written from `interactionRow`'s JSON.stringify. A row that does not parse fails the read that
 * met it; the store's `run` adds the ledger and the read to the message.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';

export function parseInteraction(text: string): InteractionRecord {
  try {
    return JSON.parse(text) as InteractionRecord;
  } catch (error) {
    throw new Error(`a stored interaction record is not JSON (${(error as Error).message})`, { cause: error });
  }
}
