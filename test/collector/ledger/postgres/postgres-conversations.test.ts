/**
 * What the PostgreSQL store does for conversations beyond the shared contract: a database written
 * before conversations existed is upgraded with its conversations over; replicas recording turns
 * of the same conversations at once count each turn once, without deadlocks; and the due queries
 * can read their partial indexes.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { interactionRow } from '../../../../collector/ledger/core/rows.ts';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/postgres/schema.ts';
import { makeRecord } from '../../../helpers/ledger-fixtures.ts';
import { postgresTestStores } from './postgres-test-stores.ts';

const at = (seconds: number) => new Date(Date.parse('2026-03-01T10:00:00.000Z') + seconds * 1000).toISOString();

describe('PostgreSQL store: conversations', () => {
  const stores = postgresTestStores();
  const { freshDatabase } = stores;
  const open = (url: string, replicaId: string) => stores.open(url, { replicaId });

  it('upgrades a database written before conversations: they are over, and reopen as revision 2', async () => {
    const { url } = await freshDatabase();
    const before = MIGRATIONS.findIndex((migration) => migration.description.includes('conversations'));
    expect(before).toBeGreaterThan(0);
    const early = makeRecord({ conversationId: 'c-1', startTime: at(0), endTime: at(1) });
    const late = makeRecord({ conversationId: 'c-1', startTime: at(10), endTime: at(11), failed: true });
    const nested = makeRecord({ conversationId: 'c-1', startTime: at(5), endTime: at(6), flowId: early.interactionId });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrate(client, 'test', MIGRATIONS.slice(0, before));
      for (const record of [late, early, nested]) {
        const row = interactionRow(record, 'test');
        await client.query(
          `INSERT INTO interactions (interaction_id, trace_id, agent_id, conversation_id, end_time_ms, record)
           VALUES ($1, $2, $3, $4, $5, $6::json)`,
          [row.interactionId, row.traceId, row.agentId, row.conversationId, row.endTimeMs, row.json],
        );
      }
    } finally {
      await client.end();
    }
    const store = await open(url, 'replica-a');
    expect(await store.getConversation('c-1', 'travel-agent')).toMatchObject({
      revision: 1,
      open: false,
      interactionIds: [early.interactionId, late.interactionId],
      startTime: at(0),
      endTime: at(11),
      endReason: 'idle',
      failed: true,
      turns: 2,
    });
    expect(await store.loadConversationsAwaitingIntake(10)).toEqual([]);
    const next = makeRecord({ conversationId: 'c-1', startTime: at(100), endTime: at(101) });
    await store.putInteractions([next]);
    expect(await store.getConversation('c-1', 'travel-agent')).toMatchObject({
      revision: 2,
      open: true,
      turns: 3,
      failed: false,
    });
  });

  it('counts every turn once when replicas record turns of the same conversations at once', async () => {
    const { url } = await freshDatabase();
    const replicas = [await open(url, 'replica-a'), await open(url, 'replica-b'), await open(url, 'replica-c')];
    const conversations = ['c-1', 'c-2', 'c-3', 'c-4'];
    // Each batch holds turns of every conversation, in a different order per replica.
    const batches = Array.from({ length: 30 }, (_, batch) =>
      conversations
        .map((conversationId, index) =>
          makeRecord({ conversationId, startTime: at(batch * 10 + index), endTime: at(batch * 10 + index + 1) }),
        )
        .sort(() => (batch % 2 === 0 ? 1 : -1)),
    );
    await Promise.all(batches.map((batch, index) => replicas[index % replicas.length].putInteractions(batch)));
    // A replayed batch (a restart) changes nothing.
    await replicas[1].putInteractions(batches[0]);
    for (const conversationId of conversations) {
      const conversation = await replicas[0].getConversation(conversationId, 'travel-agent');
      expect(conversation).toMatchObject({ revision: 1, open: true, turns: batches.length });
      expect(conversation!.interactionIds).toHaveLength(batches.length);
      expect(conversation!.lastActivityTime).toBe(
        at((batches.length - 1) * 10 + conversations.indexOf(conversationId) + 1),
      );
    }
  });

  it('can read the due conversations through their partial indexes', async () => {
    const { url } = await freshDatabase();
    await open(url, 'replica-a');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // On a near-empty table the planner would scan; what matters is that the index serves the query.
      await client.query('SET enable_seqscan = off');
      const plan = async (sql: string) =>
        (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [0, 10])).rows
          .map((row) => row['QUERY PLAN'])
          .join('\n');
      expect(
        await plan(
          'SELECT conversation_id FROM conversations WHERE open AND last_activity_ms <= $1 ' +
            'AND end_requested_ms IS NULL ORDER BY last_activity_ms LIMIT $2',
        ),
      ).toMatch(/conversations_idle/);
      expect(
        await plan(
          'SELECT conversation_id FROM conversations WHERE open AND end_due_ms IS NOT NULL AND end_due_ms <= $1 ' +
            'ORDER BY end_due_ms LIMIT $2',
        ),
      ).toMatch(/conversations_end_due/);
    } finally {
      await client.end();
    }
  });
});
