/**
 * Interaction records as the SQLite ledger keeps them (`interactions.record`): one LZ4 block of their
 * JSON, a BLOB (core/record-codec.ts; schema.ts, version 8), or their JSON as text (written before
 * that, or where LZ4 does not load). Every read of records parses them here. A record that does not
 * decompress or parse fails the read that met it, naming the ledger.
 */
import type { InteractionRecord } from '../../../src/model/records.ts';
import { LedgerStoreError } from '../errors.ts';
import { uncompressRecordLz4 } from '../core/record-codec.ts';

export type StoredRecord = string | Uint8Array;

export function parseStoredInteraction(record: StoredRecord, where: string): InteractionRecord {
  let text: string;
  if (typeof record === 'string') text = record;
  else {
    try {
      text = uncompressRecordLz4(record);
    } catch (error) {
      throw new LedgerStoreError(
        `ledger ${where}: a stored interaction record does not decompress (${(error as Error).message})`,
        { cause: error },
      );
    }
  }
  try {
    return JSON.parse(text) as InteractionRecord;
  } catch (error) {
    throw new LedgerStoreError(
      `ledger ${where}: a stored interaction record is not JSON (${(error as Error).message})`,
      { cause: error },
    );
  }
}
