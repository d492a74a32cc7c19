/**
 * Interaction records as the PostgreSQL ledger keeps them: compressed by the collector, and as
 * text or json when written by an earlier Evalon. Each upgrade leaves every record readable through
 * every read, neither runs while a replica of an older Evalon does, and a record that does not
 * read back fails its read with the ledger named.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { interactionRow } from '../../../../collector/ledger/core/rows.ts';
import { deflateRecord } from '../../../../collector/ledger/core/record-codec.ts';
import { createPostgresStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { redactUrl } from '../../../../collector/ledger/postgres/connection.ts';
import { REPLICA_LOCK_CLASS } from '../../../../collector/ledger/postgres/replica.ts';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/postgres/schema.ts';
import { makeRecord } from '../../../helpers/ledger-fixtures.ts';
import { adminQuery } from '../../../helpers/postgres.ts';
import { postgresTestStores } from './postgres-test-stores.ts';

const TEXT = 'interaction records kept as text';
const COMPRESSED = 'interaction records compressed by the collector';
/** The migrations before the one described. */
const upTo = (description: string) => {
  const index = MIGRATIONS.findIndex((migration) => migration.description === description);
  expect(index).toBeGreaterThan(0);
  return MIGRATIONS.slice(0, index);
};

describe('PostgreSQL store: interaction records', () => {
  const { freshDatabase: fresh, open } = postgresTestStores({ replicaId: 'replica-a' });
  const column = async (url: string) =>
    (
      await adminQuery(
        url,
        `SELECT format_type(atttypid, atttypmod) AS type, attstorage AS storage FROM pg_attribute
         WHERE attrelid = 'interactions'::regclass AND attname = 'record'`,
      )
    ).rows[0];

  const stored = async (url: string) =>
    (
      await adminQuery(
        url,
        `SELECT interaction_id, record IS NOT NULL AS text, octet_length(record_deflated) AS deflated
         FROM interactions ORDER BY seq`,
      )
    ).rows;

  it('upgrades a ledger that kept records as json: each reads back as it was written, through every read', async () => {
    const database = await fresh();
    const records = [
      makeRecord({ endTime: '2026-12-01T09:01:00.000Z', agentId: 'support', roles: ['user', 'assistant'] }),
      makeRecord({ endTime: '2026-12-01T09:02:00.000Z', agentId: 'support', roles: ['user', 'assistant', 'tool'] }),
    ];
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await migrate(client, 'test', upTo(TEXT));
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
    // Written from now on compressed: read back the same.
    const later = makeRecord({ endTime: '2026-12-01T09:03:00.000Z', agentId: 'support' });
    expect([...(await store.putInteractions([later]))]).toEqual([later.interactionId]);
    expect(await store.getInteraction(later.interactionId)).toEqual(later);
  });

  it('upgrades a ledger that kept records as text, rewriting none; new ones compressed, both read alike', async () => {
    const database = await fresh();
    const older = [
      makeRecord({ endTime: '2026-12-01T09:01:00.000Z', agentId: 'support', roles: ['user', 'assistant'] }),
      makeRecord({ endTime: '2026-12-01T09:02:00.000Z', agentId: 'billing', roles: ['user'] }),
    ];
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await migrate(client, 'test', upTo(COMPRESSED));
      for (const record of older) {
        const row = interactionRow(record, 'test');
        await client.query(
          `WITH inserted AS (INSERT INTO interactions (interaction_id, trace_id, agent_id, conversation_id, end_time_ms,
             record) VALUES ($1, $2, $3, $4, $5, $6) RETURNING interaction_id, seq)
           INSERT INTO interaction_intake (interaction_id, seq) SELECT interaction_id, seq FROM inserted`,
          [row.interactionId, row.traceId, row.agentId, row.conversationId, row.endTimeMs, row.json],
        );
      }
    } finally {
      await client.end();
    }
    const store = await open(database.url);
    const newer = makeRecord({
      endTime: '2026-12-01T09:03:00.000Z',
      agentId: 'support',
      roles: ['user', 'assistant', 'tool'],
      finalResponseText: 'The refund went out today. '.repeat(40),
    });
    await store.putInteractions([newer]);
    // The rows written before keep their text; the new one holds its JSON compressed, no text.
    expect(await stored(database.url)).toEqual([
      { interaction_id: older[0].interactionId, text: true, deflated: null },
      { interaction_id: older[1].interactionId, text: true, deflated: null },
      { interaction_id: newer.interactionId, text: false, deflated: expect.any(Number) },
    ]);
    const [, , { deflated }] = await stored(database.url);
    expect(deflated).toBeLessThan(JSON.stringify(newer).length / 2);
    const all = [...older, newer];
    expect(await store.getInteraction(newer.interactionId)).toEqual(newer);
    expect(await store.getInteraction(older[0].interactionId)).toEqual(older[0]);
    expect(await store.listInteractions({ agentId: 'support' })).toEqual([newer, older[0]]);
    expect(await store.loadInteractionsAwaitingIntake(10)).toEqual(all);
    expect((await store.pageInteractions({ limit: 2 })).records).toEqual(older);
    // Each agent's roles come from its newest record, compressed or not.
    expect(await store.listAgents()).toEqual([
      { agentId: 'billing', roles: ['user'], interactions: 1, lastSeen: older[1].endTime },
      { agentId: 'support', roles: ['user', 'assistant', 'tool'], interactions: 2, lastSeen: newer.endTime },
    ]);
    // A row holding both forms, or neither, is refused by the server.
    for (const change of ["record = '{}'", 'record_deflated = NULL']) {
      await expect(
        adminQuery(database.url, `UPDATE interactions SET ${change} WHERE interaction_id = $1`, [newer.interactionId]),
      ).rejects.toThrow(/interactions_one_record/);
    }
  });

  it.each([
    [TEXT, 7, 'it stores interaction records as text, which they would misread'],
    [COMPRESSED, 8, 'it stores interaction records compressed, which they would misread'],
  ])('does not apply "%s" while a replica of an older Evalon holds its id', async (description, version, why) => {
    const database = await fresh();
    const older = new pg.Client({ connectionString: database.url });
    await older.connect();
    const applied = async () =>
      Number((await adminQuery(database.url, 'SELECT version FROM schema_version')).rows[0].version);
    try {
      await migrate(older, 'test', upTo(description));
      // As a running replica holds its id (replica.ts): the advisory lock, and its row.
      const key = 42;
      await older.query('SELECT pg_advisory_lock($1, $2)', [REPLICA_LOCK_CLASS, key]);
      await older.query(
        `INSERT INTO replicas (replica_id, pid, host, backend_pid, started_at, heartbeat_at)
         VALUES ('replica-old', 1, 'host', pg_backend_pid(), now(), now())`,
      );
      await expect(createPostgresStore({ url: database.url, replicaId: 'replica-a' })).rejects.toThrow(
        `migration ${version} (${description}) failed: replicas of an older Evalon are running on this ` +
          `database (replica-old): stop them all, then start this version (${why})`,
      );
      expect(await applied()).toBe(version - 1);
    } finally {
      await older.end();
    }
    // Once it has stopped (its lock went with its connection), the upgrade goes through.
    await open(database.url);
    expect(await applied()).toBe(MIGRATIONS.length);
  });

  it.each([
    ['compressed', 'is not JSON', 'record_deflated = $2', deflateRecord('{"interactionId": ')],
    ['compressed', 'does not inflate', 'record_deflated = $2', Buffer.from('{"interactionId": "i-1"}')],
    ['as text', 'is not JSON', 'record_deflated = NULL, record = $2', '{"interactionId": '],
  ])('fails the read of a record stored %s that %s, naming the ledger and the read', async (_, what, change, value) => {
    const database = await fresh();
    const store = await open(database.url);
    const record = makeRecord({ endTime: '2026-12-01T09:01:00.000Z' });
    await store.putInteractions([record]);
    await adminQuery(database.url, `UPDATE interactions SET ${change} WHERE interaction_id = $1`, [
      record.interactionId,
      value,
    ]);
    const error = await store.getInteraction(record.interactionId).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toMatch(
      new RegExp(`^ledger .+: getInteraction failed: a stored interaction record ${what} \\(`),
    );
    expect(error?.message.startsWith(`ledger ${redactUrl(database.url)}: `)).toBe(true);
  });
});
