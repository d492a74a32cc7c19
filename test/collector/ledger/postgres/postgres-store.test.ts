import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../../../collector/ledger/postgres/connection.ts';
import { createPostgresStore, type PostgresLedgerStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/postgres/schema.ts';
import { LEDGER_TABLES } from '../../../../collector/ledger/postgres/ledger-size.ts';
import { checkMigrationList } from '../../../../collector/ledger/core/migrations.ts';
import { LedgerSchemaError, LedgerStoreError } from '../../../../collector/ledger/errors.ts';
import { adminQuery, createTestDatabase } from '../../../helpers/postgres.ts';
import { freePort } from '../../../helpers/postgres-server.ts';
import { makeRecord, plainSpan, TRACE_A, TRACE_B } from '../../../helpers/ledger-fixtures.ts';
import { describeLedgerStoreContract } from '../store-contract.ts';
import { CODEC_OTLP_PROTOBUF_LZ4, decodeEncodedSpans } from '../../../../collector/ledger/core/span-codec.ts';
import { receiveTraceRequest } from '../../../../collector/receiver/otlp/index.ts';
import { buildRealisticSpans, serializeProtobuf } from '../../../fixtures/otlp/realistic-spans.ts';
import { postgresTestStores } from './postgres-test-stores.ts';

function databaseHarness() {
  return async () => {
    const database = await createTestDatabase();
    let current: PostgresLedgerStore = await createPostgresStore({ url: database.url });
    return {
      store: current,
      async reopen() {
        current = await createPostgresStore({ url: database.url });
        return current;
      },
      async cleanup() {
        await current.close();
        await database.drop();
      },
      async sql(query: string) {
        return (await adminQuery(database.url, query)).rows as Array<Record<string, unknown>>;
      },
    };
  };
}

describeLedgerStoreContract('PostgreSQL', databaseHarness());

describe('PostgreSQL store', () => {
  const stores = postgresTestStores();
  const { freshDatabase } = stores;
  const open = (url: string) => stores.open(url);
  async function query<R extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<R[]> {
    return (await adminQuery(url, sql, values)).rows as R[];
  }

  it('keeps spans received as OTLP/protobuf compressed once, and reads them back as received', async () => {
    const { url } = await freshDatabase();
    const store = await open(url);
    const received = serializeProtobuf(await buildRealisticSpans(20));
    const { batch } = receiveTraceRequest(received, 'protobuf');
    // It answers the rows it stored, which the interactions processor holds in memory.
    const stored = await store.appendSpans(batch);
    expect(stored?.map((row) => [row.traceId, row.codec])).toEqual(
      batch.byTrace!.traceIds.map((traceId) => [traceId, CODEC_OTLP_PROTOBUF_LZ4]),
    );
    for (const row of stored ?? []) {
      expect(decodeEncodedSpans([row], 'test')).toStrictEqual(
        batch.spans().filter((span) => span.traceId === row.traceId),
      );
    }
    const rows = await query<{ codec: number; size: number }>(
      url,
      'SELECT codec, octet_length(spans) AS size FROM pending_spans ORDER BY id',
    );
    expect(rows.map((row) => row.codec)).toEqual([CODEC_OTLP_PROTOBUF_LZ4, CODEC_OTLP_PROTOBUF_LZ4]);
    // The server does not compress spans or records again (both come compressed); records
    // written before the collector compressed them it keeps as they were (text, pglz).
    const storage = await query<{ attname: string; attstorage: string }>(
      url,
      `SELECT attname, attstorage FROM pg_attribute
         WHERE attrelid IN ('pending_spans'::regclass, 'interactions'::regclass)
           AND attname IN ('spans', 'record', 'record_deflated')
         ORDER BY attname`,
    );
    expect(storage).toEqual([
      { attname: 'record', attstorage: 'x' },
      { attname: 'record_deflated', attstorage: 'e' },
      { attname: 'spans', attstorage: 'e' },
    ]);
    expect(rows.reduce((sum, row) => sum + row.size, 0)).toBeLessThan(received.byteLength / 2);
    const [first] = batch.byTrace!.traceIds;
    expect(await store.loadTraceSpans(first)).toStrictEqual(batch.spans().filter((span) => span.traceId === first));
  });

  it('creates its tables at the last schema version, with lease columns and a sequence for the queue', async () => {
    const { url } = await freshDatabase();
    await open(url);
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: MIGRATIONS.length }]);
    const tables = await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'conversation_revisions',
      'conversation_turns',
      'conversations',
      'evaluation_queue',
      'evaluations',
      'interaction_intake',
      'interactions',
      'late_spans',
      'pending_spans',
      'pruned_interactions',
      'replicas',
      'reviews',
      'schema_version',
    ]);
    // The size counts every table Evalon creates.
    expect([...LEDGER_TABLES].sort()).toEqual(tables.map((t) => t.table_name));
    const lease = await query(
      url,
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'evaluation_queue' AND " +
        "column_name LIKE 'lease%' ORDER BY column_name",
    );
    expect(lease).toEqual([
      { column_name: 'lease_owner', data_type: 'text' },
      { column_name: 'lease_until', data_type: 'timestamp with time zone' },
    ]);
    expect(await query(url, "SELECT pg_get_serial_sequence('evaluation_queue', 'seq') AS sequence")).toEqual([
      { sequence: 'public.evaluation_queue_seq' },
    ]);
    expect(() => checkMigrationList(MIGRATIONS)).not.toThrow();
  });

  it('opens an existing database without migrating it again, and keeps its data', async () => {
    const { url } = await freshDatabase();
    const first = await open(url);
    await first.appendSpans([plainSpan(TRACE_A, 1)]);
    await first.close();
    const second = await open(url);
    expect(await second.loadTraceSpans(TRACE_A)).toHaveLength(1);
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: MIGRATIONS.length }]);
  });

  it('lets several stores open a fresh database at once: one migrates, the others wait and find it done', async () => {
    const { url } = await freshDatabase();
    // Replicas each have their id (postgres-replica.test.ts): pending spans are per replica.
    const opened = await Promise.all(
      Array.from({ length: 4 }, (_, i) => stores.open(url, { replicaId: `replica-${i}` })),
    );
    expect(opened).toHaveLength(4);
    expect(await query(url, 'SELECT version FROM schema_version')).toEqual([{ version: MIGRATIONS.length }]);
    await opened[0].appendSpans([plainSpan(TRACE_A, 1)]);
    expect(await opened[0].loadTraceSpans(TRACE_A)).toHaveLength(1);
    expect(await opened[3].loadTraceSpans(TRACE_A)).toHaveLength(0);
  });

  it('applies only the migrations a database has not had yet, and rolls back a failing one, naming it', async () => {
    const { url } = await freshDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const first = { version: 1, description: 'one', sql: 'CREATE TABLE one (x integer)' };
      const second = { version: 2, description: 'two', sql: 'CREATE TABLE two (y integer)' };
      expect(await migrate(client, 'test', [first])).toBe(1);
      expect(await migrate(client, 'test', [first, second])).toBe(2);
      expect(await migrate(client, 'test', [first, second])).toBe(2);
      const broken = { version: 3, description: 'broken', sql: 'CREATE TABLE one (x integer)' };
      await expect(migrate(client, 'test', [first, second, broken])).rejects.toThrow(
        /ledger test: migration 3 \(broken\) failed: .*already exists/,
      );
      const { rows } = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
      );
      expect(rows.map((r) => r.table_name)).toEqual(['one', 'schema_version', 'two']);
      expect((await client.query('SELECT version FROM schema_version')).rows).toEqual([{ version: 2 }]);
    } finally {
      await client.end();
    }
  });

  it('opens a migrated database as a user who may only read and write the tables', async () => {
    const { url, name } = await freshDatabase();
    await (await createPostgresStore({ url })).close();
    const role = `evalon_rw_${name.slice(-12)}`;
    await query(url, `CREATE ROLE ${role} LOGIN PASSWORD 'rw-pass'`);
    try {
      await query(url, `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
      await query(url, `GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
      await query(url, `REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      const limited = new URL(url);
      limited.username = role;
      limited.password = 'rw-pass';
      const store = await createPostgresStore({ url: limited.toString() });
      await store.appendSpans([plainSpan(TRACE_A, 1)]);
      await store.putInteractions([makeRecord({ endTime: '2026-03-01T10:00:00Z' })]);
      const [queued] = await store.enqueueEvaluations([
        {
          evaluationId: 'e-1',
          interactionId: 'i-1',
          evaluatorId: 'x',
          evaluatorVersion: '1',
          agentId: 'a',
          roles: [],
          triggeredAt: '2026-03-01T10:00:00Z',
          source: 'interaction',
          attempts: 0,
        },
      ]);
      expect(queued.seq).toBeGreaterThan(0);
      expect(await store.loadTraceSpans(TRACE_A)).toHaveLength(1);
      await store.close();
    } finally {
      await query(url, `DROP OWNED BY ${role}`);
      await query(url, `DROP ROLE ${role}`);
    }
  });

  it('refuses a database whose schema is newer than this build, with a clear message', async () => {
    const { url } = await freshDatabase();
    await (await createPostgresStore({ url })).close();
    await query(url, `UPDATE schema_version SET version = ${MIGRATIONS.length + 1}`);
    const opening = createPostgresStore({ url });
    await expect(opening).rejects.toThrow(LedgerSchemaError);
    await expect(opening).rejects.toThrow(
      `ledger ${redactUrl(url)}: schema version ${MIGRATIONS.length + 1} is newer than this Evalon supports ` +
        `(${MIGRATIONS.length}) (upgrade Evalon, or point the ledger at another database)`,
    );
  });

  it('names the ledger, without its password, when the server is down or refuses the login', async () => {
    const port = await freePort();
    const down = `postgres://evalon:s3cret-pw@127.0.0.1:${port}/evalon`;
    const refused = createPostgresStore({ url: down, connectTimeoutMs: 2000 });
    await expect(refused).rejects.toThrow(LedgerStoreError);
    await expect(refused).rejects.toThrow(`ledger postgres://evalon@127.0.0.1:${port}/evalon: cannot connect: `);
    await expect(refused).rejects.toThrow(/ECONNREFUSED/);
    await expect(refused).rejects.not.toThrow(/s3cret-pw/);

    const { url } = await freshDatabase();
    const wrong = new URL(url);
    wrong.password = 'not-the-password';
    const denied = createPostgresStore({ url: wrong.toString() });
    await expect(denied).rejects.toThrow(
      new RegExp(`ledger ${escapeRegExp(redactUrl(url))}: cannot connect: password authentication failed`),
    );
    await expect(denied).rejects.not.toThrow(/not-the-password/);

    const missing = new URL(url);
    missing.pathname = '/no_such_database';
    await expect(createPostgresStore({ url: missing.toString() })).rejects.toThrow(
      /cannot connect: database "no_such_database" does not exist/,
    );
  });

  it('redacts the password wherever the URL carries it', () => {
    expect(redactUrl('postgres://evalon:secret@db.example:5432/ledger')).toBe(
      'postgres://evalon@db.example:5432/ledger',
    );
    expect(redactUrl('postgresql://db.example/ledger?user=evalon&password=secret&sslmode=require')).toBe(
      'postgresql://db.example/ledger?user=evalon&password=***&sslmode=require',
    );
    expect(redactUrl('postgres://evalon:se cret@[bad')).not.toMatch(/se cret/);
  });

  it('rejects a failed write with the driver error naming the ledger, and keeps writing afterwards', async () => {
    const { url } = await freshDatabase();
    const store = await open(url);
    await query(url, 'ALTER TABLE pending_spans RENAME TO pending_spans_away');
    const failed = store.appendSpans([plainSpan(TRACE_A, 1)]);
    await expect(failed).rejects.toThrow(LedgerStoreError);
    await expect(failed).rejects.toThrow(
      `ledger ${redactUrl(url)}: appendSpans failed: relation "pending_spans" does not exist`,
    );
    await query(url, 'ALTER TABLE pending_spans_away RENAME TO pending_spans');
    await store.appendSpans([plainSpan(TRACE_A, 2)]);
    expect((await store.loadTraceSpans(TRACE_A)).map((s) => s.attributes.n)).toEqual([2]);
  });

  it('merges appends that queue up behind the one in flight, keeping each trace in call order', async () => {
    const { url } = await freshDatabase();
    const store = await open(url);
    const calls = Array.from({ length: 200 }, (_, i) => store.appendSpans([plainSpan(i % 2 ? TRACE_A : TRACE_B, i)]));
    await Promise.all(calls);
    const [{ n }] = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM pending_spans');
    expect(Number(n)).toBe(200);
    expect((await store.loadTraceSpans(TRACE_A)).map((s) => s.attributes.n)).toEqual(
      Array.from({ length: 100 }, (_, i) => 2 * i + 1),
    );
    // Released traces' rows go; an append queued after the release is pending again.
    const release = store.releaseTraces([TRACE_A]);
    const after = store.appendSpans([plainSpan(TRACE_A, 1000)]);
    await Promise.all([release, after]);
    expect((await store.loadTraceSpans(TRACE_A)).map((s) => s.attributes.n)).toEqual([1000]);
  });

  it('finds a trace’s spans and the interactions awaiting intake through indexes', async () => {
    const { url } = await freshDatabase();
    await open(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plan = async (sql: string) => JSON.stringify((await client.query(`EXPLAIN ${sql}`)).rows);
      expect(await plan("SELECT spans FROM pending_spans WHERE trace_id = 'x' ORDER BY id")).toMatch(
        /pending_spans_by_trace/,
      );
      expect(
        await plan(
          "SELECT record FROM interactions WHERE agent_id = 'a' ORDER BY end_time_ms DESC, interaction_id DESC LIMIT 5",
        ),
      ).toMatch(/interactions_by_agent/);
      expect(await plan('SELECT interaction_id FROM interaction_intake ORDER BY seq LIMIT 5')).toMatch(
        /interaction_intake_by_seq/,
      );
    } finally {
      await client.end();
    }
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
