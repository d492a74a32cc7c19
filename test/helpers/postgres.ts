/**
 * Fresh databases on the run's test PostgreSQL server (`postgres-global-setup.ts`): one per store
 * harness, dropped afterwards, so tests never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  name: string;
  /** The database's URL (the superuser's credentials). */
  url: string;
  /** Drops the database, closing what is still connected to it. */
  drop(): Promise<void>;
}

/** The test server's superuser URL; throws with the reason when the server did not start. */
export function postgresAdminUrl(): string {
  const url = inject('postgresAdminUrl');
  if (!url)
    throw new Error(
      inject('postgresStartError') ||
        'no test PostgreSQL server (is test/helpers/postgres-global-setup.ts in vitest.config.ts?)',
    );
  return url;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = postgresAdminUrl();
  const name = `evalon_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Runs one statement on the server as the superuser (on the `postgres` database unless `url` names another). */
export async function adminQuery(url: string, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}
