/**
 * The test PostgreSQL server starts from binaries the `postgres` user cannot reach (a checkout in a
 * folder of mode 700, run as root: the usual container or CI runner), and a server that cannot
 * start fails with its reason instead of ending the test run.
 */
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { platformBinaries, reachableByOthers } from './postgres-binaries.ts';
import { startPostgresServer } from './postgres-server.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
});

function privateFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'evalon-private-')); // mkdtemp makes it mode 700
  cleanup.push(folder);
  expect(statSync(folder).mode & 0o777).toBe(0o700);
  return folder;
}

describe('the test PostgreSQL server', () => {
  it('starts and answers from binaries inside a folder only its owner can enter', async () => {
    const checkout = privateFolder();
    const binaries = join(checkout, 'node_modules', 'native');
    cpSync(platformBinaries().root, binaries, { recursive: true, verbatimSymlinks: true });
    expect(reachableByOthers(join(binaries, 'bin', 'postgres'))).toBe(false);
    const cache = mkdtempSync(join(tmpdir(), 'evalon-pg-cache-'));
    cleanup.push(cache);
    chmodSync(cache, 0o755);

    const server = await startPostgresServer({ binaries, cache, fsync: false });
    try {
      const client = new pg.Client({ connectionString: server.adminUrl });
      await client.connect();
      const { rows } = await client.query('SELECT current_user AS who, 1 + 1 AS two');
      await client.end();
      expect(rows[0]).toEqual({ who: 'evalon', two: 2 });
    } finally {
      await server.stop();
    }
    // As root the server ran as the postgres user, from a copy it can reach.
    if (userInfo().uid === 0) {
      const copies = readdirSync(cache).filter((name) => name.startsWith('evalon-postgres-'));
      expect(copies).toHaveLength(1);
      expect(reachableByOthers(join(cache, copies[0]!, 'bin', 'postgres'))).toBe(true);
    }
  }, 120_000);

  it('rejects with the reason when the binaries are not there, and the run goes on', async () => {
    const empty = privateFolder();
    await expect(startPostgresServer({ binaries: empty, cache: privateFolder() })).rejects.toThrow(
      /test PostgreSQL server failed to start: .*(cannot run|cannot be reached|cannot copy|initdb)/,
    );
  });
});
