/**
 * The PostgreSQL ledger store: the same `LedgerStore` contract as the SQLite store, on a server
 * that several collector replicas can share.
 *
 * Durability: every write resolves once its transaction has committed. With the server's default
 * `synchronous_commit = on` a commit is flushed to the server's WAL before it is acknowledged, so
 * what resolved survives a `kill -9` of the collector and a crash of the server.
 *
 * Throughput: span writes go through one ordered writer that merges the calls waiting behind the
 * statement in flight into one multi-row INSERT (`span-writer.ts`); spans are encoded on the
 * caller's thread with the ledger's span codec and travel as one binary parameter. Interaction
 * writes overlap in call order (`write-order.ts`): one's INSERT runs while the previous one applies
 * its conversation turns and commits. Other writes are one statement, or one transaction where the
 * contract asks for one, on a pooled connection.
 *
 * Replicas: pending spans belong to the replica that received them (`replica.ts`). The store
 * claims its replica id on the first use of pending spans (`loadPendingSpans` at the collector's
 * start), not at open: commands that only read the ledger (`evalon explain`, `evalon backfill`)
 * run beside a live collector without taking its id.
 */
import type { SpanData } from '../../model/span.ts';
import type { LedgerStore } from '../store.ts';
import { LedgerQueryError, LedgerSchemaError, LedgerStoreError } from '../errors.ts';
import { compressSpanRow, decodeEncodedSpans, decodeSpans, type EncodedSpans } from '../core/span-codec.ts';
import { createLogger, type Logger } from '../../logger.ts';
import { createPool, inTransaction, ledgerError, redactUrl } from './connection.ts';
import { createConversationStoreMethods } from './conversation-store.ts';
import { recordTurns } from './conversation-writes.ts';
import { createWaitAndReviewMethods } from './wait-and-review-store.ts';
import { createEvaluationStoreMethods, type Run } from './evaluation-store.ts';
import { createEvaluationSkipMethods } from './evaluation-skips.ts';
import { createRetentionStoreMethods } from './retention-store.ts';
import { interactionRow, spanRows, type InteractionRow } from '../core/rows.ts';
import { packBytes } from './pack-bytes.ts';
import { deflateRecord } from '../core/record-codec.ts';
import { createInteractionReadMethods } from './interaction-reads.ts';
import { claimReplica, resolveReplicaId, type ReplicaClaim } from './replica.ts';
import { migrate } from './schema.ts';
import { createSpanWriter } from './span-writer.ts';
import { createWriteOrder } from './write-order.ts';
import { queryTracesElsewhere } from './traces-elsewhere.ts';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq-style query parameters such as `sslmode` apply). */
  url: string;
  /** Connections the store opens at most (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection before failing, in milliseconds (default 10 s). */
  connectTimeoutMs?: number;
  /** This replica's id (`replica_id`); default `EVALON_REPLICA_ID`, else the host name. */
  replicaId?: string;
  /** How often the replica's heartbeat is refreshed, in milliseconds (default 5 s). */
  heartbeatMs?: number;
  /** Where replica-id trouble is reported (default: stderr). */
  logger?: Logger;
}

/** The PostgreSQL store: the ledger contract, with the replica methods every shared store has. */
export interface PostgresLedgerStore extends LedgerStore {
  /** The replica id whose pending spans this store reads and writes. */
  readonly replicaId: string;
  tracesElsewhere: NonNullable<LedgerStore['tracesElsewhere']>;
}

/**
 * The records, compressed (`deflateRecords`), come as one `bytea` with offsets and lengths
 * (`packBytes`), not as a `bytea[]`: node-postgres would send an array of them as hex text.
 */
const INSERT_INTERACTIONS = `
  INSERT INTO interactions
    (interaction_id, trace_id, agent_id, conversation_id, end_time_ms, record_deflated, recorded_by)
  SELECT u.interaction_id, u.trace_id, u.agent_id, u.conversation_id, u.end_time_ms,
    substring($6::bytea FROM u.json_offset FOR u.json_length), $7
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $8::int[], $9::int[])
    WITH ORDINALITY
    AS u(interaction_id, trace_id, agent_id, conversation_id, end_time_ms, json_offset, json_length, ord)
  ORDER BY u.ord
  ON CONFLICT (interaction_id) DO NOTHING`;
/**
 * The same, answering which interactions were new (the processor hands only those on, with their
 * turns), each of them awaiting intake for evaluation from then on.
 */
const INSERT_INTERACTIONS_RETURNING = `
  WITH inserted AS (${INSERT_INTERACTIONS} RETURNING interaction_id, seq),
    awaiting AS (INSERT INTO interaction_intake (interaction_id, seq) SELECT interaction_id, seq FROM inserted)
  SELECT interaction_id FROM inserted`;
const INSERT_LATE = `
  INSERT INTO late_spans (interaction_id, trace_id, span_id, received_at_ms, codec, span)
  SELECT u.interaction_id, u.trace_id, u.span_id, $4, u.codec, substring($6::bytea FROM u.byte_offset FOR u.byte_length)
  FROM unnest($1::text[], $2::text[], $3::text[], $5::smallint[], $7::int[], $8::int[])
    WITH ORDINALITY AS u(interaction_id, trace_id, span_id, codec, byte_offset, byte_length, ord)
  ORDER BY u.ord`;

/** Pending-span rows read per query when a restart replays them (a row is one trace of one append). */
const REPLAY_PAGE_ROWS = 500;

/** Connects, applies the migrations this database has not had, and returns the store. */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresLedgerStore> {
  const where = redactUrl(options.url);
  const replicaId = resolveReplicaId(options.replicaId);
  const pool = createPool(options);
  try {
    const client = await pool.connect();
    try {
      await migrate(client, where);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw error instanceof LedgerSchemaError ? error : ledgerError(where, 'cannot open the ledger', error);
  }

  const spanWriter = createSpanWriter(pool, replicaId);
  let closing: Promise<void> | undefined;
  let claiming: Promise<ReplicaClaim> | undefined;
  /** Pending spans are this replica's: its id is claimed before they are first read or written. */
  const claim = () =>
    (claiming ??= claimReplica({
      url: options.url,
      where,
      replicaId,
      heartbeatMs: options.heartbeatMs,
      connectTimeoutMs: options.connectTimeoutMs,
      logger: options.logger ?? createLogger(),
    }));

  const run: Run = async (what, body) => {
    if (closing) throw new LedgerStoreError(`ledger ${where}: the store is closed`);
    try {
      return await body();
    } catch (error) {
      if (error instanceof LedgerStoreError || error instanceof LedgerQueryError || error instanceof LedgerSchemaError)
        throw error;
      throw ledgerError(where, `${what} failed`, error);
    }
  };

  async function loadSpans(what: string, sql: string, values: unknown[]): Promise<SpanData[]> {
    return run(what, async () => {
      await claim();
      const { rows } = await pool.query<{ codec: number; spans: Buffer }>(sql, values);
      const spans: SpanData[] = [];
      for (const row of rows) for (const span of decodeSpans(row.codec, row.spans, where)) spans.push(span);
      return spans;
    });
  }

  /** The stored rows of each trace with any (this replica's), in one round trip. */
  async function readTraces(traceIds: string[]): Promise<Map<string, EncodedSpans[]>> {
    const found = new Map<string, EncodedSpans[]>();
    if (traceIds.length === 0) return found;
    await claim();
    const { rows } = await pool.query<{ trace_id: string; codec: number; spans: Buffer }>(
      'SELECT trace_id, codec, spans FROM pending_spans ' +
        'WHERE trace_id = ANY($1::text[]) AND replica_id = $2 ORDER BY id',
      [[...new Set(traceIds)], replicaId],
    );
    for (const row of rows) {
      const list = found.get(row.trace_id);
      const encoded = { codec: row.codec, bytes: row.spans };
      if (list) list.push(encoded);
      else found.set(row.trace_id, [encoded]);
    }
    return found;
  }

  /** Interaction writes overlap, in call order (write-order.ts). */
  const writes = createWriteOrder();

  async function putEncoded(rows: InteractionRow[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set<string>();
    const place = writes.next();
    try {
      // Rows encoded on the recorder thread come compressed already.
      const json = packBytes(rows.map((r) => r.deflated ?? deflateRecord(r.json)));
      const values = [
        rows.map((r) => r.interactionId),
        rows.map((r) => r.traceId),
        rows.map((r) => r.agentId),
        rows.map((r) => r.conversationId),
        rows.map((r) => r.endTimeMs),
        json.blob,
        replicaId,
        json.offsets,
        json.lengths,
      ];
      // Without conversation turns, one statement (its own transaction) once the previous write ended.
      if (!rows.some((r) => r.turn)) {
        await place.mayCommit;
        const { rows: inserted } = await pool.query<{ interaction_id: string }>(INSERT_INTERACTIONS_RETURNING, values);
        return new Set(inserted.map((row) => row.interaction_id));
      }
      // A connection is taken once this write may insert: writes waiting their turn hold none.
      await place.mayInsert;
      return await inTransaction(pool, async (client) => {
        const { rows: inserted } = await client.query<{ interaction_id: string }>(
          INSERT_INTERACTIONS_RETURNING,
          values,
        );
        place.inserted();
        const stored = new Set(inserted.map((row) => row.interaction_id));
        const fresh = new Set(stored);
        // The first record of each new id is its turn (a batch may repeat a record; it counts once).
        const turns = rows.flatMap((r) => (r.turn && fresh.delete(r.interactionId) ? [r.turn] : []));
        await place.mayCommit;
        await recordTurns(client, turns);
        return stored;
      });
    } finally {
      place.ended();
    }
  }

  return {
    ...createEvaluationStoreMethods(pool, where, run),
    ...createConversationStoreMethods(pool, where, run),
    ...createWaitAndReviewMethods(pool, where, run),
    ...createEvaluationSkipMethods(pool, where, run),
    ...createRetentionStoreMethods(pool, where, run),
    ...createInteractionReadMethods(pool, run),
    replicaId,

    claimReplica() {
      return run('claimReplica', async () => {
        await claim();
      });
    },

    appendSpans(spans) {
      return run('appendSpans', async () => {
        // Compressed (codec 4, LZ4): a ninth to a half of the bytes through the server
        // (span-codec.ts), and what the interactions processor keeps in memory instead of the
        // received bytes.
        const rows = spanRows(spans, where).map(compressSpanRow);
        if (rows.length === 0) return rows;
        await claim();
        await spanWriter.append(rows);
        return rows;
      });
    },

    loadPendingSpans() {
      return loadSpans('loadPendingSpans', 'SELECT codec, spans FROM pending_spans WHERE replica_id = $1 ORDER BY id', [
        replicaId,
      ]);
    },

    forEachPendingSpans(each) {
      return run('forEachPendingSpans', async () => {
        await claim();
        // Pages by id, so that neither side holds the whole backlog.
        for (let after = 0; ; ) {
          const { rows } = await pool.query<{ id: string; codec: number; spans: Buffer }>(
            'SELECT id, codec, spans FROM pending_spans WHERE replica_id = $1 AND id > $2 ORDER BY id LIMIT $3',
            [replicaId, after, REPLAY_PAGE_ROWS],
          );
          for (const row of rows) each(decodeSpans(row.codec, row.spans, where));
          if (rows.length < REPLAY_PAGE_ROWS) return;
          after = Number(rows.at(-1)!.id);
        }
      });
    },

    loadTraceSpans(traceId) {
      return loadSpans(
        'loadTraceSpans',
        'SELECT codec, spans FROM pending_spans WHERE trace_id = $1 AND replica_id = $2 ORDER BY id',
        [traceId, replicaId],
      );
    },

    loadSpansOfTraces(traceIds) {
      return run('loadSpansOfTraces', async () => {
        const found = new Map<string, SpanData[]>();
        for (const [traceId, rows] of await readTraces(traceIds)) found.set(traceId, decodeEncodedSpans(rows, where));
        return found;
      });
    },

    loadEncodedSpansOfTraces(traceIds) {
      return run('loadEncodedSpansOfTraces', () => readTraces(traceIds));
    },

    // Rows come from the server: there is no file to read them from elsewhere.
    locateSpansOfTraces(traceIds) {
      return run('locateSpansOfTraces', () => readTraces(traceIds));
    },

    readsSpansFromServer: true,
    compressesRecords: true,
    // Rows are read into buffers of their own, left to the garbage collector.
    releaseEncodedSpans() {},

    putInteractions(records) {
      return run('putInteractions', () => putEncoded(records.map((record) => interactionRow(record, where))));
    },

    putEncodedInteractions(rows) {
      return run('putEncodedInteractions', () => putEncoded(rows));
    },

    releaseTraces(traceIds) {
      return run('releaseTraces', async () => {
        if (traceIds.length === 0) return;
        await claim();
        await spanWriter.release([...traceIds]);
      });
    },

    tracesElsewhere(traceIds) {
      return run('tracesElsewhere', () => queryTracesElsewhere(pool, replicaId, [...new Set(traceIds)]));
    },

    putLateSpans(late) {
      return run('putLateSpans', async () => {
        if (late.length === 0) return;
        const rows = late.map(({ interactionId, span }) => ({ interactionId, span, row: spanRows([span], where)[0] }));
        const { blob, offsets, lengths } = packBytes(rows.map((r) => r.row.bytes));
        await pool.query(INSERT_LATE, [
          rows.map((r) => r.interactionId),
          rows.map((r) => r.span.traceId),
          rows.map((r) => r.span.spanId),
          Date.now(),
          rows.map((r) => r.row.codec),
          blob,
          offsets,
          lengths,
        ]);
      });
    },

    loadLateSpans(interactionId) {
      return run('loadLateSpans', async () => {
        const { rows } = await pool.query<{ codec: number; span: Buffer }>(
          'SELECT codec, span FROM late_spans WHERE interaction_id = $1 ORDER BY id',
          [interactionId],
        );
        return rows.flatMap((row) => decodeSpans(row.codec, row.span, where).map((span) => ({ interactionId, span })));
      });
    },

    close() {
      closing ??= (async () => {
        // Writes already accepted finish (and resolve) before the connections close.
        await spanWriter.drain();
        await pool.end();
        // Last: the id stays this process's until its writes are done.
        const claimed = await claiming?.catch(() => undefined);
        await claimed?.release();
      })();
      return closing;
    },
  };
}
