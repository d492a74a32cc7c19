/**
 * SQLite stores on ledger files in temporary folders, closed and removed after each test of the
 * suite that calls `useTempStores`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createSqliteStore, type SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';

export function useTempStores(prefix: string) {
  const dirs: string[] = [];
  const stores: SqliteLedgerStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** A ledger file's path in a folder of its own. */
    ledgerPath(): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return join(dir, 'ledger.db');
    },
    open(path: string, writer: 'thread' | 'inline' = 'thread'): SqliteLedgerStore {
      const store = createSqliteStore({ path, writer });
      stores.push(store);
      return store;
    },
  };
}
