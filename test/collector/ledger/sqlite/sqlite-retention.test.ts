/**
 * Retention on the SQLite store beyond the shared contract: new files use incremental vacuum and
 * give pruned pages back in steps; a file from before (schema 5) migrates, keeps its data and
 * says it cannot give space back until compacted; compacting needs the file to itself; a prune
 * transaction holds the writer for a bounded time and defers the rest.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS } from '../../../../collector/ledger/sqlite/schema.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { runPrunePass } from '../../../../collector/retention/prune-pass.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { DAY, ended, NOW, recorded } from '../retention-contract.ts';

describe('SQLite retention', () => {
  const dirs: string[] = [];
  const stores: SqliteLedgerStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function ledgerPath(): string {
    const dir = mkdtempSync(join(tmpdir(), 'evalon-sqlite-retention-'));
    dirs.push(dir);
    return join(dir, 'ledger.db');
  }
  function open(path: string, writer: 'thread' | 'inline' = 'thread'): SqliteLedgerStore {
    const store = createSqliteStore({ path, writer });
    stores.push(store);
    return store;
  }
  const pragma = (path: string, name: string) => {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return Number((db.prepare(`PRAGMA ${name}`).get() as Record<string, number>)[name]);
    } finally {
      db.close();
    }
  };

  it('measures the pages in use as used, and free pages and the WAL as free', async () => {
    const path = ledgerPath();
    const store = open(path);
    await recorded(store, [ended(1), ended(0)]);
    const size = await store.measureLedgerSize();
    const pageSize = pragma(path, 'page_size');
    expect(size.usedBytes).toBe((pragma(path, 'page_count') - pragma(path, 'freelist_count')) * pageSize);
    expect(size.freeBytes).toBe(pragma(path, 'freelist_count') * pageSize + statSync(`${path}-wal`).size);
  });

  it('creates new ledger files with incremental vacuum, and gives pruned pages back to the file system', async () => {
    const path = ledgerPath();
    const store = open(path);
    expect(pragma(path, 'auto_vacuum')).toBe(2);
    const big = 'w'.repeat(200_000);
    await recorded(store, [
      ...Array.from({ length: 60 }, (_, i) => ended(90 - i, { finalResponseText: big })),
      ended(0),
    ]);
    // The checkpoint thread copies the WAL back: the file holds the pages.
    await pollUntil(() => (statSync(path).size > 10_000_000 ? true : undefined), { what: 'the ledger file to grow' });
    const report = await runPrunePass({ store, policy: { maxAgeMs: 10 * DAY }, now: NOW, keepFreeBytes: 0 });
    expect(report).toMatchObject({ units: 60, incrementalVacuum: true });
    expect(report.reclaimedBytes).toBeGreaterThan(10_000_000);
    expect((await store.measureLedgerSize()).freeBytes - statSync(`${path}-wal`).size).toBe(0);
    // The file shrinks once the checkpoint has copied the vacuumed pages back.
    await pollUntil(() => (statSync(path).size < 2_000_000 ? true : undefined), { what: 'the ledger file to shrink' });
  });

  it('migrates a ledger from before retention, keeping its data; it gives no space back until compacted', async () => {
    const path = ledgerPath();
    // Made by an Evalon before incremental vacuum: the same settings but auto_vacuum, the schema before retention.
    const old = new DatabaseSync(path);
    old.exec('PRAGMA page_size = 16384');
    old.exec('PRAGMA journal_mode = WAL');
    migrate(old, path, MIGRATIONS.slice(0, MIGRATIONS.length - 1));
    old.close();
    const store = open(path, 'inline');
    const aged = Array.from({ length: 20 }, () => ended(40, { finalResponseText: 'v'.repeat(100_000) }));
    const records = [...aged, ended(0)];
    await recorded(store, records);
    expect(pragma(path, 'auto_vacuum')).toBe(0);
    const report = await runPrunePass({ store, policy: { maxAgeMs: 30 * DAY }, now: NOW });
    expect(report).toMatchObject({ incrementalVacuum: false, reclaimedBytes: 0 });
    expect(report.units).toBe(20);
    expect(await store.getInteraction(records[0].interactionId)).toBeUndefined();
    // The pages pruned stay in the file, free for new data.
    expect((await store.measureLedgerSize()).freeBytes).toBeGreaterThan(1_000_000);
    const compacted = await store.compactLedger!();
    expect(compacted.afterBytes).toBeLessThan(compacted.beforeBytes - 1_000_000);
    expect(pragma(path, 'auto_vacuum')).toBe(2);
    expect(await store.getInteraction(records[20].interactionId)).toStrictEqual(records[20]);
  });

  it('compacts only a ledger file it has to itself', async () => {
    const path = ledgerPath();
    const store = open(path);
    await expect(store.compactLedger!()).rejects.toThrow(
      `ledger ${path}: compacting needs the ledger file to itself (stop the collector)`,
    );
  });

  it('holds the writer for a bounded time per prune, deferring the units it did not reach', async () => {
    const path = ledgerPath();
    const store = open(path);
    const records = Array.from({ length: 5_000 }, (_, i) => ended(40 + (i % 100)));
    for (let at = 0; at < records.length; at += 1_000) await recorded(store, records.slice(at, at + 1_000));
    await recorded(store, [ended(0)]);
    const units = (await store.findPrunable({ limit: 5_000 })).units;
    expect(units).toHaveLength(5_000);
    const result = await store.pruneUnits(units, { at: new Date(NOW).toISOString(), keepEvaluations: false });
    expect(result.deferred.length).toBeGreaterThan(0);
    expect(result.pruned.length + result.deferred.length).toBe(5_000);
    // The deferred are exactly those left, and the next call goes on with them.
    const left = await store.existingInteractionIds(records.map((r) => r.interactionId));
    expect(new Set(result.deferred.map((u) => (u.kind === 'interaction' ? u.interactionId : '')))).toEqual(left);
  });
});
