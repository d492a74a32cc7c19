/**
 * Interaction records kept as text by the PostgreSQL ledger: the upgrade from ledgers that kept
 * them as json leaves every record readable, and a record that is not JSON fails its read with the
 * ledger named.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { interactionRow } from '../../../../collector/ledger/core/rows.ts';
import { createPostgresStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { redactUrl } from '../../../../collector/ledger/postgres/connection.ts';
import { REPLICA_LOCK_CLASS } from '../../../../collector/ledger/postgres/replica.ts';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/postgres/schema.ts';
import { makeRecord } from '../../../helpers/ledger-fixtures.ts';
import { adminQuery } from '../../../helpers/postgres.ts';
import { postgresTestStores } from './postgres-test-stores.ts';

describe('PostgreSQL store: records as text', () => {
  const { freshDatabase: fresh, open } = postgresTestStores({ replicaId: 'replica-a' });
  const column = async (url: string) =>
    (
      await adminQuery(
        url,
        `SELECT format_type(atttypid, atttypmod) AS type, attstorage AS storage FROM pg_attribute
         WHERE attrelid = 'interactions'::regclass AND attname = 'record'`,
      )
    ).rows[0];

  it('upgrades a ledger that kept records as json: each reads back as it was written, through every read', async () => {
    const database = await fresh();
    const before = MIGRATIONS.findIndex((migration) => migration.description === 'interaction records kept as text');
    expect(before).toBeGreaterThan(0);
    const records = [
      makeRecord({ endTime: '2026-12-01T09:01:00.000Z', agentId: 'support', roles: ['user', 'assistant'] }),
      makeRecord({ endTime: '2026-12-01T09:02:00.000Z', agentId: 'support', roles: ['user', 'assistant', 'tool'] }),
    ];
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await migrate(client, 'test', MIGRATIONS.slice(0, before));
      expect(await column(database.url)).toEqual({ type: 'json', storage: 'e' });
      for (const record of records) {
        const row = interactionRow(record, 'test');
        await client.query(
          `WITH inserted AS (INSERT INTO interactions (interaction_id, trace_id, agent_id, conversation_id, end_time_ms,
             record) VALUES ($1, $2, $3, $4, $5, $6::json) RETURNING interaction_id, seq)
           INSERT INTO interaction_intake (interaction_id, seq) SELECT interaction_id, seq FROM inserted`,
          [row.interactionId, row.traceId, row.agentId, row.conversationId, row.endTimeMs, row.json],
        );
      }
    } finally {
      await client.end();
    }
    const store = await open(database.url);
    expect(await column(database.url)).toEqual({ type: 'text', storage: 'x' });
    expect(await store.getInteraction(records[0].interactionId)).toEqual(records[0]);
    expect(await store.listInteractions({ agentId: 'support' })).toEqual([records[1], records[0]]);
    expect(await store.loadInteractionsAwaitingIntake(10)).toEqual(records);
    expect((await store.pageInteractions({ limit: 10 })).records).toEqual(records);
    expect(await store.listAgents()).toEqual([
      { agentId: 'support', roles: ['user', 'assistant', 'tool'], interactions: 2, lastSeen: records[1].endTime },
    ]);
    // Written from now on as text: read back the same.
    const later = makeRecord({ endTime: '2026-12-01T09:03:00.000Z', agentId: 'support' });
    expect([...(await store.putInteractions([later]))]).toEqual([later.interactionId]);
    expect(await store.getInteraction(later.interactionId)).toEqual(later);
  });

  it('does not upgrade while a replica of an older Evalon holds its id: it would misread the records', async () => {
    const database = await fresh();
    const before = MIGRATIONS.findIndex((migration) => migration.description === 'interaction records kept as text');
    const older = new pg.Client({ connectionString: database.url });
    await older.connect();
    try {
      await migrate(older, 'test', MIGRATIONS.slice(0, before));
      // As a running replica holds its id (replica.ts): the advisory lock, and its row.
      const key = 42;
      await older.query('SELECT pg_advisory_lock($1, $2)', [REPLICA_LOCK_CLASS, key]);
      await older.query(
        `INSERT INTO replicas (replica_id, pid, host, backend_pid, started_at, heartbeat_at)
         VALUES ('replica-old', 1, 'host', pg_backend_pid(), now(), now())`,
      );
      await expect(createPostgresStore({ url: database.url, replicaId: 'replica-a' })).rejects.toThrow(
        'migration 7 (interaction records kept as text) failed: replicas of an older Evalon are running on this ' +
          'database (replica-old): stop them all, then start this version',
      );
      expect(await column(database.url)).toEqual({ type: 'json', storage: 'e' });
    } finally {
      await older.end();
    }
    // Once it has stopped (its lock went with its connection), the upgrade goes through.
    await open(database.url);
    expect(await column(database.url)).toEqual({ type: 'text', storage: 'x' });
  });

  it('fails the read of a record that is not JSON, naming the ledger and the read', async () => {
    const database = await fresh();
    const store = await open(database.url);
    const record = makeRecord({ endTime: '2026-12-01T09:01:00.000Z' });
    await store.putInteractions([record]);
    await adminQuery(database.url, `UPDATE interactions SET record = '{"interactionId": ' WHERE interaction_id = $1`, [
      record.interactionId,
    ]);
    const error = await store.getInteraction(record.interactionId).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toMatch(/^ledger .+: getInteraction failed: a stored interaction record is not JSON \(/);
    expect(error?.message.startsWith(`ledger ${redactUrl(database.url)}: `)).toBe(true);
  });
});
