/**
 * Transactions the server rolls back because of another one: the evaluation queue's writes run
 * a deadlock's victim again (`inRetriedTransaction`, `retryConflicts`), and it commits; any other
 * error fails at once.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPool, inRetriedTransaction, inTransaction } from '../../../../collector/ledger/postgres/connection.ts';
import { adminQuery } from '../../../helpers/postgres.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { postgresTestStores } from './postgres-test-stores.ts';

describe('PostgreSQL store: transactions that conflict with others', () => {
  const { freshDatabase } = postgresTestStores();
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A table of two rows, a pool and a lone connection on a fresh database. */
  async function twoRows() {
    const database = await freshDatabase();
    await adminQuery(database.url, 'CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)');
    await adminQuery(database.url, 'INSERT INTO t VALUES (1, 0), (2, 0)');
    const pool = createPool({ url: database.url });
    const other = new pg.Client({ connectionString: database.url, application_name: 'other' });
    await other.connect();
    closers.push(
      () => pool.end(),
      () => other.end(),
    );
    /** Resolves once a session of `application_name` waits for a row lock. */
    const waitingForLock = (name: string) =>
      pollUntil(
        async () =>
          (
            await adminQuery(
              database.url,
              "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
              [name],
            )
          ).rowCount! > 0 || undefined,
        { timeoutMs: 10_000 },
      );
    return { database, pool, other, waitingForLock };
  }

  /**
   * `run` takes row 2 then row 1 while the other connection holds row 1 and then asks for row 2:
   * a deadlock in which `run`, waiting first, is the one the server rolls back.
   */
  async function deadlock(run: typeof inTransaction) {
    const { database, pool, other, waitingForLock } = await twoRows();
    await other.query('BEGIN');
    await other.query('UPDATE t SET v = v + 1 WHERE id = 1');
    let runs = 0;
    const body = run(pool, async (client) => {
      runs++;
      await client.query('UPDATE t SET v = v + 10 WHERE id = 2');
      await client.query('UPDATE t SET v = v + 10 WHERE id = 1');
      return runs;
    }).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await waitingForLock('evalon');
    await other.query('UPDATE t SET v = v + 1 WHERE id = 2');
    await other.query('COMMIT');
    const settled = await body;
    const rows = (await adminQuery(database.url, 'SELECT id, v FROM t ORDER BY id')).rows;
    return { settled, runs, rows };
  }

  it('rolls back the victim of a deadlock once (the store fails its operation)', async () => {
    const { settled, runs, rows } = await deadlock(inTransaction);
    expect((settled as { error: { code: string } }).error.code).toBe('40P01');
    expect(runs).toBe(1);
    expect(rows).toEqual([
      { id: 1, v: 1 },
      { id: 2, v: 1 },
    ]);
  });

  it('runs the victim of a deadlock again, which then commits', async () => {
    const { settled, runs, rows } = await deadlock(inRetriedTransaction);
    expect(settled).toEqual({ value: 2 });
    expect(runs).toBe(2);
    expect(rows).toEqual([
      { id: 1, v: 11 },
      { id: 2, v: 11 },
    ]);
  });

  it('fails at once on an error that another run would not change', async () => {
    const { pool } = await twoRows();
    let runs = 0;
    await expect(
      inRetriedTransaction(pool, async (client) => {
        runs++;
        await client.query('INSERT INTO t VALUES (1, 0)');
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(runs).toBe(1);
  });
});
