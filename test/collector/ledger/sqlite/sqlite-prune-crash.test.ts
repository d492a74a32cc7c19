/**
 * Retention under kill -9 on SQLite: a pruner process SIGKILLed half way through a large ledger,
 * twice, leaves no half-pruned unit (each goes in one transaction); a last pass finishes the job.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { runPrunePass } from '../../../../collector/retention/prune-pass.ts';
import { CRASH_NOW, CRASH_POLICY, expectWholeUnits, fillCrashLedger, pruneAndKill } from '../helpers/prune-crash.ts';

const OLD_INTERACTIONS = 3_000;

describe('SQLite retention under kill -9', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-prune-crash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'ledger.db');
  const sql = async (query: string) => {
    const reader = new DatabaseSync(path, { readOnly: true });
    try {
      return reader.prepare(query).all() as Array<Record<string, unknown>>;
    } finally {
      reader.close();
    }
  };

  it('leaves every unit whole or wholly gone after a pruner is killed half way, twice', async () => {
    const filling = createSqliteStore({ path });
    const ledger = await fillCrashLedger(filling, OLD_INTERACTIONS);
    await filling.close();

    let gone = 0;
    for (const minUnits of [200, 1_200]) {
      const reported = await pruneAndKill('sqlite', path, minUnits);
      const store = createSqliteStore({ path });
      const now = await expectWholeUnits(store, sql, ledger);
      await store.close();
      // What the child reported was committed; a batch in flight may have been too, or not.
      expect(now).toBeGreaterThanOrEqual(Math.min(reported, OLD_INTERACTIONS));
      expect(now).toBeLessThan(OLD_INTERACTIONS);
      expect(now).toBeGreaterThanOrEqual(gone);
      gone = now;
    }

    const store = createSqliteStore({ path });
    await runPrunePass({ store, policy: CRASH_POLICY, now: CRASH_NOW });
    expect(await expectWholeUnits(store, sql, ledger, true)).toBe(OLD_INTERACTIONS);
    await store.close();
  });
});
