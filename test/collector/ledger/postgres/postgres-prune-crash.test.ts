/**
 * Retention under kill -9 on PostgreSQL: a pruner process SIGKILLed half way through a large
 * ledger, twice, leaves no half-pruned unit (each batch is one transaction, rolled back by the
 * server when its connection dies); a last pass finishes the job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { runPrunePass } from '../../../../collector/retention/prune-pass.ts';
import { adminQuery, createTestDatabase, type TestDatabase } from '../../../helpers/postgres.ts';
import { CRASH_NOW, CRASH_POLICY, expectWholeUnits, fillCrashLedger, pruneAndKill } from '../helpers/prune-crash.ts';

const OLD_INTERACTIONS = 2_000;

describe('PostgreSQL retention under kill -9', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  const sql = async (query: string) => (await adminQuery(database.url, query)).rows as Array<Record<string, unknown>>;

  it('leaves every unit whole or wholly gone after a pruner is killed half way, twice', async () => {
    const filling = await createPostgresStore({ url: database.url });
    const ledger = await fillCrashLedger(filling, OLD_INTERACTIONS);
    await filling.close();

    let gone = 0;
    for (const minUnits of [100, 800]) {
      const reported = await pruneAndKill('postgres', database.url, minUnits);
      const store = await createPostgresStore({ url: database.url });
      const now = await expectWholeUnits(store, sql, ledger);
      await store.close();
      expect(now).toBeGreaterThanOrEqual(Math.min(reported, OLD_INTERACTIONS));
      expect(now).toBeLessThan(OLD_INTERACTIONS);
      expect(now).toBeGreaterThanOrEqual(gone);
      gone = now;
    }

    const store = await createPostgresStore({ url: database.url });
    await runPrunePass({ store, policy: CRASH_POLICY, now: CRASH_NOW });
    expect(await expectWholeUnits(store, sql, ledger, true)).toBe(OLD_INTERACTIONS);
    await store.close();
  });
});
