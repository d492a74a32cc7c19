/**
 * Pending spans as rows of the ledger's `pending_spans` table: how an in-memory ledger
 * (`:memory:`) keeps them, with the same operations as a file ledger's span log (span-log.ts).
 * A file ledger written before the span log has its rows moved into the log when its collector
 * starts (sqlite-store.ts).
 */
import type { DatabaseSync } from 'node:sqlite';
import type { EncodedSpans } from '../core/span-codec.ts';
import type { SpanLog } from './span-log.ts';
import type { WriterClient } from './writer-client.ts';

type PendingRow = { trace_id: string; codec: number; spans: Uint8Array };

export function createPendingSpanTable(db: DatabaseSync, writer: WriterClient): SpanLog {
  const selectAll = db.prepare('SELECT trace_id, codec, spans FROM pending_spans ORDER BY id');
  const selectTrace = db.prepare('SELECT trace_id, codec, spans FROM pending_spans WHERE trace_id = ? ORDER BY id');
  const selectAny = db.prepare('SELECT EXISTS (SELECT 1 FROM pending_spans WHERE trace_id = ?) AS pending');
  function rowsOf(traceIds: Iterable<string>): Map<string, EncodedSpans[]> {
    const found = new Map<string, EncodedSpans[]>();
    for (const traceId of new Set(traceIds)) {
      const rows = selectTrace.all(traceId) as PendingRow[];
      if (rows.length > 0)
        found.set(
          traceId,
          rows.map((row) => ({ codec: row.codec, bytes: row.spans })),
        );
    }
    return found;
  }

  return {
    async append(rows) {
      if (rows.length > 0) await writer.write({ op: 'appendSpans', rows: [...rows] });
    },
    async release(traceIds) {
      if (traceIds.length > 0) await writer.write({ op: 'releaseTraces', traceIds: [...traceIds] });
    },
    rowsOf,
    // The rows are in the ledger's table, not in files of their own: read them.
    locate: rowsOf,
    eachRow(each) {
      for (const row of selectAll.iterate() as Iterable<PendingRow>) {
        each({ traceId: row.trace_id, codec: row.codec, bytes: row.spans });
      }
    },
    giveBack() {},
    tidy() {},
    has: (traceId) => Number((selectAny.get(traceId) as { pending: number }).pending) === 1,
    bytes: 0,
    async close() {},
  };
}
