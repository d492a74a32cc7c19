/**
 * The intake mark of the PostgreSQL ledger: a row per interaction awaiting intake for evaluation,
 * written with the interaction and removed at intake — and the upgrade from the ledgers that kept
 * it as a flag on each interaction.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { interactionRow } from '../../../../collector/ledger/core/rows.ts';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/postgres/schema.ts';
import { makeRecord } from '../../../helpers/ledger-fixtures.ts';
import { adminQuery } from '../../../helpers/postgres.ts';
import { postgresTestStores } from './postgres-test-stores.ts';

describe('PostgreSQL store: the intake mark', () => {
  const { freshDatabase, open } = postgresTestStores({ replicaId: 'replica-a' });
  const record = (minute: number) => makeRecord({ endTime: new Date(Date.UTC(2026, 11, 1, 9, minute)).toISOString() });
  const ids = (records: Array<{ interactionId: string }>) => records.map((r) => r.interactionId);

  it('holds each new interaction until intake, in the order recorded, and never rewrites the interaction', async () => {
    const database = await freshDatabase();
    const store = await open(database.url);
    const [a, b, c] = [record(1), record(2), record(3)];
    await store.putInteractions([a, b]);
    await store.putInteractions([c, a]); // a again (a replay): not new, not awaiting twice
    expect(ids(await store.loadInteractionsAwaitingIntake(10))).toEqual(ids([a, b, c]));
    // A row version's place (ctid) changes when it is rewritten.
    const places = async () =>
      (await adminQuery(database.url, 'SELECT interaction_id, ctid::text AS ctid FROM interactions ORDER BY 1')).rows;
    const before = await places();
    await store.enqueueEvaluations([], { intake: [a.interactionId, c.interactionId] });
    expect(ids(await store.loadInteractionsAwaitingIntake(10))).toEqual(ids([b]));
    expect(await places()).toEqual(before);
  });

  it('upgrades a ledger that kept the mark on each interaction: what awaited intake still does', async () => {
    const database = await freshDatabase();
    const before = MIGRATIONS.findIndex((migration) => migration.description.includes('intake mark'));
    expect(before).toBeGreaterThan(0);
    const [taken, waiting] = [record(1), record(2)];
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await migrate(client, 'test', MIGRATIONS.slice(0, before));
      for (const [record, awaiting] of [
        [taken, false],
        [waiting, true],
      ] as const) {
        const row = interactionRow(record, 'test');
        await client.query(
          `INSERT INTO interactions (interaction_id, trace_id, agent_id, conversation_id, end_time_ms, record,
             awaiting_intake) VALUES ($1, $2, $3, $4, $5, $6::json, $7)`,
          [row.interactionId, row.traceId, row.agentId, row.conversationId, row.endTimeMs, row.json, awaiting],
        );
      }
    } finally {
      await client.end();
    }
    const store = await open(database.url);
    expect(ids(await store.loadInteractionsAwaitingIntake(10))).toEqual(ids([waiting]));
    expect(await store.getInteraction(taken.interactionId)).toMatchObject({ interactionId: taken.interactionId });
  });
});
