/**
 * Vitest global setup: one PostgreSQL server for the whole run, started here and stopped at the
 * end, so `npm test` needs no server installed by hand. Tests reach it through `inject` (see
 * `postgres.ts`). `EVALON_TEST_POSTGRES_URL` (a superuser URL) uses an existing server instead.
 *
 * When the server cannot start, only the PostgreSQL tests fail, with the reason; the rest run.
 */
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test server's superuser URL, or an empty string when it failed to start. */
    postgresAdminUrl: string;
    /** Why the server did not start (empty when it did). */
    postgresStartError: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.EVALON_TEST_POSTGRES_URL;
  if (external) {
    project.provide('postgresAdminUrl', external);
    project.provide('postgresStartError', '');
    return async () => {};
  }
  try {
    const server = await startPostgresServer();
    project.provide('postgresAdminUrl', server.adminUrl);
    project.provide('postgresStartError', '');
    return () => server.stop();
  } catch (error) {
    project.provide('postgresAdminUrl', '');
    project.provide('postgresStartError', (error as Error).message);
    return async () => {};
  }
}
