/**
 * Writes to `pending_spans` in call order, one statement in flight at a time, merging the calls
 * that queued up meanwhile (group commit): while one statement commits, the next requests wait,
 * and the next statement takes all of them. Under load that is one round trip and one commit for
 * many OTLP requests; and since one statement runs at a time, the ids of a trace's rows follow
 * the order of the calls, as `loadTraceSpans` needs. Each call resolves once the statement holding
 * its rows has committed (autocommit: one statement is one transaction).
 *
 * Appends and releases merge into one statement as long as no trace is both appended and
 * released in it (its parts see one snapshot, so their order would be lost): a request that
 * would make it so waits for the next statement.
 */
import type pg from 'pg';
import type { SpanRow } from '../core/rows.ts';
import { packBytes } from './pack-bytes.ts';

/** At most this many encoded bytes go in one INSERT; the rest waits for the next. */
export const MAX_FLUSH_BYTES = 32 * 1024 * 1024;

const INSERT_SPANS = `
  INSERT INTO pending_spans (replica_id, trace_id, span_count, codec, spans)
  SELECT $7, r.trace_id, r.span_count, r.codec, substring($5::bytea FROM r.byte_offset FOR r.byte_length)
  FROM unnest($1::text[], $2::int[], $3::smallint[], $4::int[], $6::int[])
    WITH ORDINALITY AS r(trace_id, span_count, codec, byte_offset, byte_length, ord)
  ORDER BY r.ord`;
const DELETE_TRACES = 'DELETE FROM pending_spans WHERE trace_id = ANY($1::text[]) AND replica_id = $2';
const DELETE_AND_INSERT = `
  WITH released AS (DELETE FROM pending_spans WHERE trace_id = ANY($8::text[]) AND replica_id = $7)
  ${INSERT_SPANS}`;

type Request =
  | { kind: 'append'; rows: SpanRow[]; bytes: number; done: Settle }
  | { kind: 'release'; traceIds: string[]; done: Settle };
type Settle = { resolve: () => void; reject: (error: unknown) => void };

export interface SpanWriter {
  append(rows: SpanRow[]): Promise<void>;
  release(traceIds: string[]): Promise<void>;
  /** Resolves once every request made so far has settled. */
  drain(): Promise<void>;
}

/**
 * `replicaId` scopes the writer: its rows carry it, and a release deletes only its rows (another
 * replica's spans of the same trace stay theirs).
 */
export function createSpanWriter(pool: pg.Pool, replicaId: string, maxFlushBytes = MAX_FLUSH_BYTES): SpanWriter {
  const queue: Request[] = [];
  let running: Promise<void> | undefined;

  function submit(make: (done: Settle) => Request): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      queue.push(make({ resolve, reject }));
      running ??= run();
    });
  }

  async function run(): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch = takeBatch();
        try {
          await write(batch);
          for (const request of batch) request.done.resolve();
        } catch (error) {
          for (const request of batch) request.done.reject(error);
        }
      }
    } finally {
      running = undefined; // in the same tick as the empty-queue check: a later submit starts a new run
    }
  }

  /** The requests at the head of the queue that one statement can take (appends up to MAX_FLUSH_BYTES). */
  function takeBatch(): Request[] {
    const appended = new Set<string>();
    const released = new Set<string>();
    let bytes = 0;
    let count = 0;
    for (; count < queue.length; count += 1) {
      const request = queue[count];
      if (request.kind === 'append') {
        if (count > 0 && bytes + request.bytes > maxFlushBytes) break;
        if (request.rows.some((row) => released.has(row.traceId))) break;
        bytes += request.bytes;
        for (const row of request.rows) appended.add(row.traceId);
      } else {
        if (request.traceIds.some((traceId) => appended.has(traceId))) break;
        for (const traceId of request.traceIds) released.add(traceId);
      }
    }
    return queue.splice(0, count);
  }

  async function write(batch: Request[]): Promise<void> {
    const rows = batch.flatMap((request) => (request.kind === 'append' ? request.rows : []));
    const traceIds = batch.flatMap((request) => (request.kind === 'release' ? request.traceIds : []));
    if (rows.length === 0) {
      await pool.query(DELETE_TRACES, [traceIds, replicaId]);
      return;
    }
    const { blob, offsets, lengths } = packBytes(rows.map((row) => row.bytes));
    const values = [
      rows.map((r) => r.traceId),
      rows.map((r) => r.count),
      rows.map((r) => r.codec),
      offsets,
      blob,
      lengths,
      replicaId,
    ];
    if (traceIds.length === 0) await pool.query(INSERT_SPANS, values);
    else await pool.query(DELETE_AND_INSERT, [...values, traceIds]);
  }

  return {
    append(rows) {
      const bytes = rows.reduce((sum, row) => sum + row.bytes.byteLength, 0);
      return submit((done) => ({ kind: 'append', rows, bytes, done }));
    },
    release(traceIds) {
      return submit((done) => ({ kind: 'release', traceIds, done }));
    },
    async drain() {
      while (running) await running;
    },
  };
}
