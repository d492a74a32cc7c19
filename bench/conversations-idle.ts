/**
 * Phase 3 of `npm run bench:conversations`: the cost of idle detection against the number of open
 * conversations. A store (SQLite file, or PostgreSQL on an embedded server) is filled with open
 * conversations through `putInteractions` (one turn each, an hour old at most); the tracker's due
 * query is timed with none due, then with 100 due (made older than the idle window). On PostgreSQL
 * the table is analyzed first, as autovacuum would; the figure before that is printed too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LedgerStore } from '../collector/ledger/store.ts';
import { createPostgresStore } from '../collector/ledger/postgres/postgres-store.ts';
import { createSqliteStore } from '../collector/ledger/sqlite/sqlite-store.ts';
import { testInteractionRecord } from '../src/testing/index.ts';
import { startPostgresServer } from '../test/helpers/postgres-server.ts';
import { adminQuery } from './scale-ledger.ts';

const IDLE_MS = 3_600_000;
const RUNS = 200;
const DUE = 100;

function turns(from: number, count: number, endMs: number) {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    const traceId = n.toString(16).padStart(32, '0');
    const spanId = n.toString(16).padStart(16, '0');
    const end = new Date(endMs - (n % 1000)).toISOString();
    return testInteractionRecord({
      traceId,
      spanId,
      interactionId: `${traceId}-${spanId}`,
      agentId: 'bench-agent',
      conversationId: `idle-${n}`,
      startTime: end,
      endTime: end,
    });
  });
}

async function time(store: LedgerStore, now: number): Promise<{ median: number; p99: number; found: number }> {
  const samples: number[] = [];
  let found = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    found = (await store.findDueConversations({ now: new Date(now).toISOString(), idleMs: IDLE_MS, limit: 500 }))
      .length;
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[RUNS / 2], p99: samples[Math.floor(RUNS * 0.99)], found };
}

export async function timeIdleDetection(kind: 'sqlite' | 'postgres', sizes: number[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-idle-'));
  const server = kind === 'postgres' ? await startPostgresServer({ fsync: false }) : undefined;
  const rows: string[] = [];
  try {
    let database = 0;
    for (const size of sizes) {
      let store: LedgerStore;
      let analyze = async (): Promise<void> => {};
      if (server) {
        const name = `bench_idle_${++database}`;
        await adminQuery(server.adminUrl, `CREATE DATABASE ${name}`);
        const url = new URL(server.adminUrl);
        url.pathname = `/${name}`;
        store = await createPostgresStore({ url: url.toString() });
        // What autovacuum does on a server that has run for a while: the planner's statistics of
        // a table filled a moment ago say nothing yet about its 100,000 rows.
        analyze = async () => {
          await adminQuery(url.toString(), 'ANALYZE conversations');
        };
      } else store = createSqliteStore({ path: join(dir, `ledger-${size}.db`) });
      const now = Date.now();
      for (let from = 0; from < size; from += 2_000)
        await store.putInteractions(turns(from, Math.min(2_000, size - from), now - 60_000));
      const fresh = server ? await time(store, now) : undefined;
      await analyze();
      const none = await time(store, now);
      // 100 more, idle for longer than the window: the ones the query must find.
      await store.putInteractions(turns(size, DUE, now - IDLE_MS - 60_000));
      const some = await time(store, now);
      rows.push(
        `${kind} ${size.toLocaleString('en')} open: none due ${none.median.toFixed(3)} / ${none.p99.toFixed(3)} ms; ` +
          `${some.found} due ${some.median.toFixed(3)} / ${some.p99.toFixed(3)} ms` +
          (fresh ? ` (none due before ANALYZE: ${fresh.median.toFixed(3)} / ${fresh.p99.toFixed(3)} ms)` : ''),
      );
      await store.close();
    }
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
