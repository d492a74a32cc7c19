/**
 * Fresh test databases and the PostgreSQL stores a test opens on them: after each test the stores
 * are closed, then the databases dropped. Call it inside a `describe`: it registers that
 * `afterEach`, so hooks registered after it (children to kill, pools to end) run before it.
 */
import { afterEach } from 'vitest';
import {
  createPostgresStore,
  type PostgresLedgerStore,
  type PostgresStoreOptions,
} from '../../../../collector/ledger/postgres/postgres-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../helpers/postgres.ts';

type StoreOptions = Omit<PostgresStoreOptions, 'url'>;

export function postgresTestStores(defaults: StoreOptions = {}) {
  const databases: TestDatabase[] = [];
  const stores: PostgresLedgerStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const database of databases.splice(0)) await database.drop();
  });
  return {
    async freshDatabase(): Promise<TestDatabase> {
      const database = await createTestDatabase();
      databases.push(database);
      return database;
    },
    /** A store on `url` with the defaults, `options` over them. */
    async open(url: string, options: StoreOptions = {}): Promise<PostgresLedgerStore> {
      const store = await createPostgresStore({ ...defaults, ...options, url });
      stores.push(store);
      return store;
    },
  };
}
