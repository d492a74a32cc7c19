/**
 * PostgreSQL ledger store benchmark: `appendSpans` rates against the SQLite store, on the same
 * realistic spans (test/helpers/span-fixtures.ts), with a throwaway embedded server (fsync on, the
 * server's defaults otherwise).
 *
 *   source ../shared/tools/use-node24.sh && node bench/postgres-store.ts
 *
 * Options (environment): BENCH_SECONDS per case (default 4), EVALON_TEST_POSTGRES_URL (a
 * superuser URL: use that server instead of starting one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { SpanData } from '../collector/model/span.ts';
import type { LedgerStore } from '../collector/ledger/store.ts';
import { createPostgresStore } from '../collector/ledger/postgres/postgres-store.ts';
import { createSqliteStore } from '../collector/ledger/sqlite/sqlite-store.ts';
import { startPostgresServer } from '../test/helpers/postgres-server.ts';
import { makeBatch, seededRandom } from '../test/helpers/span-fixtures.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const random = seededRandom(7);
const shapes = {
  '10-span batches (1 trace)': Array.from({ length: 200 }, () => makeBatch(random, 1, 10)),
  '1000-span batches (50 traces)': Array.from({ length: 20 }, () => makeBatch(random, 50, 20)),
};

/**
 * Appends batches for SECONDS with `inFlight` calls outstanding; releases traces 50 calls later, as
 * the collector would.
 */
async function measure(store: LedgerStore, batches: SpanData[][], inFlight: number): Promise<number> {
  const deadline = Date.now() + SECONDS * 1000;
  let spans = 0;
  let call = 0;
  const history: string[][] = [];
  const started = Date.now();
  async function worker(): Promise<void> {
    while (Date.now() < deadline) {
      const batch = batches[call++ % batches.length].map((span) => ({
        ...span,
        traceId: span.traceId.slice(0, 24) + call.toString(16).padStart(8, '0'),
      }));
      await store.appendSpans(batch);
      spans += batch.length;
      history.push([...new Set(batch.map((span) => span.traceId))]);
      if (history.length > 50) await store.releaseTraces(history.shift()!);
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  return spans / ((Date.now() - started) / 1000);
}

const server = process.env.EVALON_TEST_POSTGRES_URL ? undefined : await startPostgresServer();
const adminUrl = process.env.EVALON_TEST_POSTGRES_URL ?? server!.adminUrl;
const dir = mkdtempSync(join(tmpdir(), 'evalon-pg-bench-'));
const line = (what: string, sqlite: number, postgres: number) =>
  console.log(
    `${what.padEnd(48)} SQLite ${Math.round(sqlite).toLocaleString('en-US').padStart(9)}  ` +
      `PostgreSQL ${Math.round(postgres).toLocaleString('en-US').padStart(9)} spans/s  ` +
      `(${Math.round((100 * postgres) / sqlite)} %)`,
  );
try {
  let n = 0;
  for (const [shape, batches] of Object.entries(shapes)) {
    for (const inFlight of [1, 8]) {
      n += 1;
      const sqlite = createSqliteStore({ path: join(dir, `ledger-${n}.db`) });
      const sqliteRate = await measure(sqlite, batches, inFlight);
      await sqlite.close();
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE evalon_bench_${n}`);
      await admin.end();
      const url = new URL(adminUrl);
      url.pathname = `/evalon_bench_${n}`;
      const postgres = await createPostgresStore({ url: url.toString() });
      const postgresRate = await measure(postgres, batches, inFlight);
      await postgres.close();
      line(`appendSpans, ${shape}, ${inFlight} in flight`, sqliteRate, postgresRate);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
}
