/**
 * The span role of the SQLite store (`SpanStore`): pending spans in the ledger's span log (a
 * file ledger, span-log.ts) or its `pending_spans` table (`:memory:`, pending-span-table.ts), late
 * spans in the `late_spans` table.
 *
 * A ledger file written before the span log may still hold pending spans in its table: the first
 * write or replay (the collector's, which holds the ledger) moves them into the log, in order,
 * before anything else is appended, then deletes them from the table.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { SpanData } from '../../model/span.ts';
import { spanRows } from '../core/rows.ts';
import { decodeEncodedSpans, decodeSpans } from '../core/span-codec.ts';
import type { SpanStore } from '../span-store.ts';
import type { SpanLog } from './span-log.ts';
import type { WriterClient } from './writer-client.ts';

type TableRow = { trace_id: string; span_count: number; codec: number; spans: Uint8Array };

export function createSpanMethods(
  db: DatabaseSync,
  path: string,
  writer: WriterClient,
  ensureOpen: () => void,
  pending: SpanLog,
  /** Whether `pending` is the span log (else the table itself). */
  inLog: boolean,
): SpanStore {
  const selectLate = db.prepare('SELECT codec, span FROM late_spans WHERE interaction_id = ? ORDER BY id');
  let adopted: Promise<void> | undefined;

  /**
   * Once, before this process first writes or replays pending spans (it holds the ledger): tidies
   * the log, and moves pending rows left in the table by an earlier version into it.
   */
  function adopt(): Promise<void> {
    adopted ??= (async () => {
      if (!inLog) return;
      pending.tidy();
      const rows = db.prepare('SELECT trace_id, span_count, codec, spans FROM pending_spans ORDER BY id').all() as
        | TableRow[]
        | [];
      if (rows.length === 0) return;
      await pending.append(
        rows.map((row) => ({ traceId: row.trace_id, count: row.span_count, codec: row.codec, bytes: row.spans })),
      );
      await writer.write({ op: 'releaseTraces', traceIds: [...new Set(rows.map((row) => row.trace_id))] });
    })().catch((error: unknown) => {
      adopted = undefined; // tried again by the next write (moved rows appended twice replay as duplicates)
      throw error;
    });
    return adopted;
  }

  return {
    readsSpansFromServer: false,

    async appendSpans(spans) {
      ensureOpen();
      const rows = spanRows(spans, path);
      if (rows.length === 0) return;
      await adopt();
      await pending.append(rows);
    },

    async loadPendingSpans() {
      ensureOpen();
      await adopt();
      const spans: SpanData[] = [];
      pending.eachRow((row) => {
        for (const span of decodeSpans(row.codec, row.bytes, path)) spans.push(span);
      });
      return spans;
    },

    async forEachPendingSpans(each) {
      ensureOpen();
      await adopt();
      pending.eachRow((row) => {
        each(decodeSpans(row.codec, row.bytes, path));
      });
    },

    async loadTraceSpans(traceId) {
      ensureOpen();
      return decodeEncodedSpans(pending.rowsOf([traceId]).get(traceId) ?? [], path);
    },

    async loadSpansOfTraces(traceIds) {
      ensureOpen();
      const found = new Map<string, SpanData[]>();
      for (const [traceId, rows] of pending.rowsOf(traceIds)) found.set(traceId, decodeEncodedSpans(rows, path));
      return found;
    },

    async loadEncodedSpansOfTraces(traceIds) {
      ensureOpen();
      return pending.rowsOf(traceIds);
    },

    async locateSpansOfTraces(traceIds) {
      ensureOpen();
      return pending.locate(traceIds);
    },

    releaseEncodedSpans(read) {
      pending.giveBack(read);
    },

    async releaseTraces(traceIds) {
      ensureOpen();
      if (traceIds.length === 0) return;
      await adopt();
      await pending.release(traceIds);
    },

    async putLateSpans(late) {
      ensureOpen();
      if (late.length === 0) return;
      const receivedAtMs = Date.now();
      const rows = late.map(({ interactionId, span }) => {
        const [row] = spanRows([span], path);
        return {
          interactionId,
          traceId: span.traceId,
          spanId: span.spanId,
          receivedAtMs,
          codec: row.codec,
          bytes: row.bytes,
        };
      });
      await writer.write({ op: 'putLateSpans', rows });
    },

    async loadLateSpans(interactionId) {
      ensureOpen();
      const rows = selectLate.all(interactionId) as { codec: number; span: Uint8Array }[];
      return rows.flatMap((row) => decodeSpans(row.codec, row.span, path).map((span) => ({ interactionId, span })));
    },
  };
}
