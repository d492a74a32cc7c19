/**
 * Interaction records as the PostgreSQL ledger keeps them: compressed by the collector
 * (`record_deflated`, core/record-codec.ts; schema.ts, version 8), or, written before that, their
 * JSON as `text` (`record`). Every query reading records selects both (`recordColumns`) and parses
 * the row here. The server checks neither on the way in: every record is written from
 * `interactionRow`'s JSON.stringify. A row that does not inflate or parse fails the read that met
 * it; the store's `run` adds the ledger and the read to the message.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';
import { inflateRecord } from '../core/record-codec.ts';

/** The columns a query reads a record from, prefixed with the interactions table's alias if any. */
export function recordColumns(alias = ''): string {
  const prefix = alias === '' ? '' : `${alias}.`;
  return `${prefix}record, ${prefix}record_deflated`;
}

export interface StoredRecordRow {
  record: string | null;
  record_deflated: Buffer | null;
}

export function parseInteraction(row: StoredRecordRow): InteractionRecord {
  let text: string;
  if (row.record_deflated !== null) {
    try {
      text = inflateRecord(row.record_deflated);
    } catch (error) {
      throw new Error(`a stored interaction record does not inflate (${(error as Error).message})`, { cause: error });
    }
  } else if (row.record !== null) text = row.record;
  else throw new Error('a stored interaction record has neither record nor record_deflated');
  try {
    return JSON.parse(text) as InteractionRecord;
  } catch (error) {
    throw new Error(`a stored interaction record is not JSON (${(error as Error).message})`, { cause: error });
  }
}
