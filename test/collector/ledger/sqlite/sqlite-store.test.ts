import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { checkMigrationList } from '../../../../collector/ledger/core/migrations.ts';
import { LedgerSchemaError, LedgerStoreError } from '../../../../collector/ledger/errors.ts';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/sqlite/schema.ts';
import {
  FALLBACK_AUTOCHECKPOINT_PAGES,
  openDatabase,
  PAGE_SIZE_BYTES,
} from '../../../../collector/ledger/sqlite/open-database.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import {
  createSqliteStore,
  type SqliteLedgerStore,
  type SqliteStoreOptions,
} from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { makeRecord, plainSpan, TRACE_A, TRACE_B } from '../../../helpers/ledger-fixtures.ts';
import { CODEC_V8, encodeSpans } from '../../../../collector/ledger/core/span-codec.ts';
import { describeLedgerStoreContract } from '../store-contract.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'evalon-ledger-'));
}

function fileHarness(options: Omit<SqliteStoreOptions, 'path'>) {
  return async () => {
    const dir = tempDir();
    const path = join(dir, 'nested', 'ledger.db');
    let current: SqliteLedgerStore = createSqliteStore({ path, ...options });
    return {
      store: current,
      async reopen() {
        current = createSqliteStore({ path, ...options });
        return current;
      },
      async cleanup() {
        await current.close();
        rmSync(dir, { recursive: true, force: true });
      },
      async sql(query: string) {
        const reader = new DatabaseSync(path, { readOnly: true });
        try {
          return reader.prepare(query).all() as Array<Record<string, unknown>>;
        } finally {
          reader.close();
        }
      },
    };
  };
}

describeLedgerStoreContract('SQLite file, writer thread', fileHarness({}));
describeLedgerStoreContract(
  'SQLite file, inline writer, synchronous=full',
  fileHarness({ writer: 'inline', synchronous: 'full' }),
);

describe('SQLite store', () => {
  const dirs: string[] = [];
  const stores: SqliteLedgerStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function open(options: Partial<SqliteStoreOptions> = {}): { store: SqliteLedgerStore; path: string } {
    const dir = tempDir();
    dirs.push(dir);
    const path = options.path ?? join(dir, 'a', 'b', 'ledger.db');
    const store = createSqliteStore({ ...options, path });
    stores.push(store);
    return { store, path };
  }

  it('creates the folder, and the file in WAL mode at the last schema version', async () => {
    const { store, path } = open();
    await store.appendSpans([plainSpan(TRACE_A, 1)]);
    const db = new DatabaseSync(path, { readOnly: true });
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(db.prepare('SELECT version FROM schema_version').all()).toEqual([{ version: MIGRATIONS.length }]);
    db.close();
  });

  it(
    'copies the WAL back into the ledger file on its ' + 'checkpoint thread, well below the writer’s own threshold',
    async () => {
      const { store, path } = open();
      // ~24 MiB of interactions: far below the writer's fallback auto-checkpoint (256 MiB), so only
      // the checkpoint thread can move these pages into the main file.
      const big = 'x'.repeat(8 * 1024);
      for (let batch = 0; batch < 30; batch++) {
        const records = Array.from({ length: 100 }, (_, i) =>
          makeRecord({ endTime: new Date(Date.UTC(2025, 0, 1, 0, 0, batch, i)).toISOString(), finalResponseText: big }),
        );
        await store.putInteractions(records);
      }
      expect(FALLBACK_AUTOCHECKPOINT_PAGES * PAGE_SIZE_BYTES).toBeGreaterThan(200 * 1024 * 1024);
      await pollUntil(() => (statSync(path).size > 20 * 1024 * 1024 ? true : undefined), {
        timeoutMs: 15_000,
        what: 'the ledger file to receive the WAL',
      });
      expect(await store.countInteractions({})).toBe(3000);
    },
  );

  it('finds a trace’s spans through an index', async () => {
    const { path } = open();
    const db = new DatabaseSync(path, { readOnly: true });
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT spans FROM pending_spans WHERE trace_id = ?').all('x');
    expect(JSON.stringify(plan)).toMatch(/USING INDEX pending_spans_by_trace/);
    const list = db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT record FROM interactions WHERE agent_id = ? ORDER BY end_time_ms DESC, ' +
          'interaction_id DESC LIMIT 5',
      )
      .all('a');
    expect(JSON.stringify(list)).toMatch(/USING INDEX interactions_by_agent/);
    db.close();
  });

  it('works in memory, writing inline', async () => {
    const { store } = open({ path: ':memory:' });
    await store.appendSpans([plainSpan(TRACE_A, 1)]);
    expect(await store.loadTraceSpans(TRACE_A)).toHaveLength(1);
  });

  it('refuses a file whose schema is newer than this build, with a clear message', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    await createSqliteStore({ path }).close();
    const db = new DatabaseSync(path);
    db.exec(`UPDATE schema_version SET version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => createSqliteStore({ path })).toThrow(LedgerSchemaError);
    expect(() => createSqliteStore({ path })).toThrow(
      `ledger ${path}: schema version ${MIGRATIONS.length + 1} is newer than this Evalon supports ` +
        `(${MIGRATIONS.length}) (upgrade Evalon, or point the ledger at another file)`,
    );
  });

  it('applies only the migrations a file has not had yet', () => {
    const db = new DatabaseSync(':memory:');
    const first = { version: 1, description: 'one', sql: 'CREATE TABLE one (x INTEGER)' };
    const second = { version: 2, description: 'two', sql: 'CREATE TABLE two (y INTEGER)' };
    expect(migrate(db, 'test', [first])).toBe(1);
    expect(migrate(db, 'test', [first, second])).toBe(2);
    expect(migrate(db, 'test', [first, second])).toBe(2);
    expect(
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((r) => r.name),
    ).toEqual(['one', 'schema_version', 'two']);
    db.close();
  });

  it('rolls back a failing migration and names it', () => {
    const db = new DatabaseSync(':memory:');
    const broken = [
      { version: 1, description: 'one', sql: 'CREATE TABLE one (x INTEGER)' },
      { version: 2, description: 'broken', sql: 'CREATE TABLE one (x INTEGER)' },
    ];
    expect(() => migrate(db, 'test', broken)).toThrow(/ledger test: migration 2 \(broken\) failed: .*already exists/);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('one', 'schema_version')").get()).toEqual(
      { n: 0 },
    );
    db.close();
  });

  it('checks that migration versions run 1, 2, 3 in order', () => {
    expect(() => checkMigrationList(MIGRATIONS)).not.toThrow();
    expect(() => checkMigrationList([{ version: 2, description: 'x', sql: '' }])).toThrow(/versions must be 1, 2, 3/);
  });

  it('names the file when it is not an SQLite database', () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir, 'not-a-db.db');
    writeFileSync(path, 'this is not sqlite, just text that is long enough to fill a header '.repeat(20));
    expect(() => createSqliteStore({ path })).toThrow(LedgerStoreError);
    expect(() => createSqliteStore({ path })).toThrow(new RegExp(`ledger ${path}: cannot use the ledger file`));
  });

  it('rejects an unknown synchronous mode', () => {
    expect(() => open({ synchronous: 'off' as 'full' })).toThrow(/synchronous must be 'normal' or 'full'/);
  });

  it('rejects a span without trace id and a record without a valid end time, naming them', async () => {
    const { store } = open();
    await expect(store.appendSpans([{ ...plainSpan(TRACE_A, 1), traceId: '' }])).rejects.toThrow(
      /a span has no traceId/,
    );
    const record = { interactionId: 'i-1', traceId: TRACE_A, agentId: 'a', endTime: 'later' };
    await expect(store.putInteractions([record as never])).rejects.toThrow(
      /record i-1 has endTime "later" \(expected ISO-8601\)/,
    );
  });

  it('reads what another store on the same file wrote once it resolved', async () => {
    const { store, path } = open();
    const other = createSqliteStore({ path });
    stores.push(other);
    await store.appendSpans([plainSpan(TRACE_A, 1)]);
    expect(await other.loadTraceSpans(TRACE_A)).toHaveLength(1);
  });

  it('keeps pending spans in a span log beside the ledger file, and moves an older ledger’s into it', async () => {
    const { store, path } = open();
    await store.appendSpans([plainSpan(TRACE_A, 1)]);
    expect(readdirSync(`${path}-spans`).filter((name) => name.endsWith('.spans'))).toHaveLength(1);
    await store.close();
    // A ledger written before the span log: its pending spans are rows of pending_spans.
    const db = new DatabaseSync(path);
    db.prepare('INSERT INTO pending_spans (trace_id, span_count, codec, spans) VALUES (?, 1, ?, ?)').run(
      TRACE_B,
      CODEC_V8,
      encodeSpans([plainSpan(TRACE_B, 2)]),
    );
    db.close();
    const upgraded = createSqliteStore({ path });
    stores.push(upgraded);
    const replayed: number[] = [];
    await upgraded.forEachPendingSpans((spans) => replayed.push(...spans.map((span) => Number(span.attributes.n))));
    // Both are replayed (a real upgrade has only the rows: the log comes with this version).
    expect(replayed.sort()).toEqual([1, 2]);
    const reader = new DatabaseSync(path, { readOnly: true });
    await pollUntil(
      () =>
        Number((reader.prepare('SELECT count(*) AS n FROM pending_spans').get() as { n: number }).n) === 0
          ? true
          : undefined,
      { what: 'the moved rows to leave the table' },
    );
    reader.close();
    expect((await upgraded.loadTraceSpans(TRACE_B)).map((span) => span.attributes.n)).toEqual([2]);
    await upgraded.releaseTraces([TRACE_A, TRACE_B]);
    expect(await upgraded.loadPendingSpans()).toEqual([]);
  });

  it('waits while another connection holds the write lock, also for a write that reads first', async () => {
    // With the writer thread: an inline writer would wait on this very thread.
    const { store, path } = open();
    const record = makeRecord({ endTime: '2025-06-01T10:00:00.000Z', conversationId: 'c-1' });
    await store.putInteractions([record]);
    // Like `evalon ledger prune` in another process: holds the lock for 300 ms.
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    // Another connection opens meanwhile (as the checkpoint thread's does): it does not need the lock.
    openDatabase({ path, synchronous: 'normal' }).close();
    const release = new Promise<void>((done) => setTimeout(() => done(other.exec('COMMIT')), 300));
    // Reads the conversation, then writes its end request.
    const request = { conversationId: 'c-1', agentId: record.agentId, at: record.endTime, dueAt: record.endTime };
    const ended = store.requestConversationEnd(request);
    await release;
    other.close();
    await expect(ended).resolves.toMatchObject({ open: true });
  });

  it('rejects a failed write with the SQLite error, and keeps writing afterwards', async () => {
    for (const writer of ['thread', 'inline'] as const) {
      const { store, path } = open({ writer });
      await store.putInteractions([makeRecord({ endTime: '2025-06-01T10:00:00.000Z' })]); // statements prepared
      const other = new DatabaseSync(path);
      other.exec('ALTER TABLE interactions RENAME TO interactions_away');
      const failed = store.putInteractions([makeRecord({ endTime: '2025-06-01T10:00:01.000Z' })]);
      await expect(failed).rejects.toThrow(LedgerStoreError);
      await expect(failed).rejects.toThrow(
        new RegExp(`ledger ${path}: write failed: .*no such table: (main\\.)?interactions`),
      );
      other.exec('ALTER TABLE interactions_away RENAME TO interactions');
      other.close();
      const record = makeRecord({ endTime: '2025-06-01T10:00:02.000Z' });
      await store.putInteractions([record]);
      expect(await store.getInteraction(record.interactionId)).toStrictEqual(record);
    }
  });
});
