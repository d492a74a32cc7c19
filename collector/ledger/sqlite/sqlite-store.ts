/**
 * The embedded ledger store: one SQLite file through `node:sqlite` (no native dependency), and
 * beside it the span log of pending spans (`<ledger>-spans/`, span-log.ts; `:memory:` keeps them
 * in a table).
 *
 * Durability: WAL journal with `synchronous=NORMAL` by default. A write resolves once its
 * transaction has committed, that is once it is in the WAL file (an append, once in the span
 * log's file), so it survives a crash or `kill -9` of the process (the contract of
 * `appendSpans`). A power loss or OS crash may lose the last transactions; `synchronous: 'full'`
 * syncs the WAL at every commit, and the span log at every write, to cover that too.
 *
 * Threads: this module reads through its own connection; every SQL write goes to one writer
 * connection on a worker thread (`writer-thread.ts`), so SQL, commits and checkpoints do not block
 * the event loop, and span log writes run on libuv's thread pool. WAL lets the reader see each
 * write as soon as it has resolved. `:memory:` (or `writer: 'inline'`) writes on the caller's thread.
 */
import type { StatementSync } from 'node:sqlite';
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { InteractionQuery } from '../interaction-store.ts';
import type { LedgerStore } from '../store.ts';
import { LedgerStoreError } from '../errors.ts';
import { createConversationStoreMethods } from './conversation-store.ts';
import { createEvaluationStoreMethods } from './evaluation-store.ts';
import { createRetentionStoreMethods } from './retention-store.ts';
import { createWaitAndReviewMethods } from './wait-and-review-store.ts';
import { normalizeInteractionQuery } from '../interaction-query.ts';
import { interactionRow, type InteractionRow } from '../core/rows.ts';
import { createPendingSpanTable } from './pending-span-table.ts';
import { openSpanLog, spanLogDir } from './span-log.ts';
import { createSpanMethods } from './span-methods.ts';
import { openDatabase, WRITER_CACHE_SIZE_KIB, type Synchronous } from './open-database.ts';
import { migrate } from './schema.ts';
import { createInlineWriter, createThreadWriter, type WriterClient } from './writer-client.ts';
import { takeCollectorLock, type CollectorLock } from './collector-lock.ts';

export interface SqliteStoreOptions {
  /** The ledger file; its folder is created. `:memory:` keeps everything in memory (tests). */
  path: string;
  /**
   * `normal` (default): what a write resolved survives a process crash or kill -9; a power loss
   * may lose the last transactions. `full`: also survives a power loss; every commit waits for
   * an fsync.
   */
  synchronous?: Synchronous;
  /** `thread` (default for a file): writes run on a worker thread. `inline`: on the caller's. */
  writer?: 'thread' | 'inline';
}

/** The SQLite store's type: the ledger contract, nothing more (its callers name it). */
export type SqliteLedgerStore = LedgerStore;

export function createSqliteStore(options: SqliteStoreOptions): SqliteLedgerStore {
  const { path } = options;
  const synchronous = options.synchronous ?? 'normal';
  const inline = path === ':memory:' || options.writer === 'inline';
  // Writing inline, this connection is the writer too, with the writer's page cache.
  const db = openDatabase({ path, synchronous, ...(inline ? { cacheSizeKib: WRITER_CACHE_SIZE_KIB } : {}) });
  let writer: WriterClient;
  try {
    migrate(db, path);
    writer = inline ? createInlineWriter(db, path) : createThreadWriter({ path, synchronous });
  } catch (error) {
    db.close();
    throw error;
  }

  const selectInteraction = db.prepare('SELECT record FROM interactions WHERE interaction_id = ?');
  const selectExisting = db.prepare(
    'SELECT interaction_id FROM interactions WHERE interaction_id IN (SELECT value FROM json_each(?))',
  );
  const listStatements = new Map<string, StatementSync>();
  let closing: Promise<void> | undefined;
  let lock: CollectorLock | undefined;
  // Pending spans: a file ledger's span log beside it; an in-memory ledger's table.
  const log = path === ':memory:' ? undefined : openSpanLog({ dir: spanLogDir(path), synchronous, where: path });
  const pending = log ?? createPendingSpanTable(db, writer);

  function ensureOpen(): void {
    if (closing) throw new LedgerStoreError(`ledger ${path}: the store is closed`);
  }

  async function putEncoded(rows: InteractionRow[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set<string>();
    return new Set((await writer.write({ op: 'putInteractions', rows })) as string[]);
  }

  /** One prepared statement per combination of filters, made on first use. */
  function listStatement(agent: boolean, conversation: boolean, since: boolean): StatementSync {
    const key = `${+agent}${+conversation}${+since}`;
    let statement = listStatements.get(key);
    if (!statement) {
      const conditions = [
        agent && 'agent_id = ?',
        conversation && 'conversation_id = ?',
        since && 'end_time_ms >= ?',
      ].filter(Boolean);
      const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
      statement = db.prepare(
        `SELECT record FROM interactions ${where} ORDER BY end_time_ms DESC, interaction_id DESC LIMIT ?`,
      );
      listStatements.set(key, statement);
    }
    return statement;
  }

  return {
    ...createEvaluationStoreMethods(db, path, writer, ensureOpen),
    ...createConversationStoreMethods(db, path, writer, ensureOpen),
    ...createRetentionStoreMethods(db, path, writer, ensureOpen, inline, log),
    ...createSpanMethods(db, path, writer, ensureOpen, pending, log !== undefined),
    ...createWaitAndReviewMethods(db, path, writer, ensureOpen),

    /** One collector per ledger file: the lock file `<ledger>.lock` (collector-lock.ts). */
    async claimReplica() {
      ensureOpen();
      if (path === ':memory:' || lock) return;
      lock = takeCollectorLock(path);
    },

    // Records are kept as JSON text: SQLite stores them at the cost of a copy.
    compressesRecords: false,

    async putInteractions(records) {
      ensureOpen();
      return putEncoded(records.map((record) => interactionRow(record, path)));
    },

    async putEncodedInteractions(rows) {
      ensureOpen();
      return putEncoded(rows);
    },

    async getInteraction(interactionId) {
      ensureOpen();
      const row = selectInteraction.get(interactionId) as { record: string } | undefined;
      return row ? (JSON.parse(row.record) as InteractionRecord) : undefined;
    },

    async listInteractions(query: InteractionQuery) {
      ensureOpen();
      const q = normalizeInteractionQuery(query);
      const params: (string | number)[] = [];
      if (q.agentId !== undefined) params.push(q.agentId);
      if (q.conversationId !== undefined) params.push(q.conversationId);
      if (q.sinceMs !== undefined) params.push(q.sinceMs);
      params.push(q.limit);
      const statement = listStatement(q.agentId !== undefined, q.conversationId !== undefined, q.sinceMs !== undefined);
      return (statement.all(...params) as { record: string }[]).map(
        (row) => JSON.parse(row.record) as InteractionRecord,
      );
    },

    async existingInteractionIds(ids) {
      ensureOpen();
      if (ids.length === 0) return new Set();
      const rows = selectExisting.all(JSON.stringify(ids)) as { interaction_id: string }[];
      return new Set(rows.map((row) => row.interaction_id));
    },

    close() {
      closing ??= (async () => {
        try {
          await pending.close();
          await writer.close();
        } finally {
          db.close();
          lock?.release();
        }
      })();
      return closing;
    },
  };
}
