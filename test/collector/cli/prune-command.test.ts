/**
 * `evalon ledger prune` through the real CLI entry (`main`) against configuration files and
 * ledgers: a dry run counts and removes nothing, a prune removes what the policy says, a running
 * collector (a real one, in its own process) makes a prune refuse but not a dry run, an old SQLite
 * file is compacted once to incremental vacuum, a PostgreSQL ledger is pruned beside its replicas'
 * pruning lock, and a configuration without retention is bad input.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../collector/cli/main.ts';
import { createPostgresStore } from '../../../collector/ledger/postgres/postgres-store.ts';
import { createSqliteStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { spawnCollector, type CollectorProcess } from '../../helpers/collector-process.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';

const DAY = 86_400_000;
const dirs: string[] = [];
const processes: CollectorProcess[] = [];
const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) {
    p.child.kill('SIGKILL');
    await p.exited;
  }
  for (const database of databases.splice(0)) await database.drop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Ended `days` ago (real time: the command prunes at its own now). */
function ended(days: number): InteractionRecord {
  const record = makeRecord({ endTime: new Date(Date.now() - days * DAY).toISOString() });
  delete record.conversationId;
  return record;
}

/** A folder with a configuration (`ledger` YAML, retention appended) and the ledger file's path. */
function setup(ledger: (dir: string) => string, retention = '{ max_age: 30d }'): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-prune-'));
  dirs.push(dir);
  const config = join(dir, 'otel-config.yaml');
  writeFileSync(
    config,
    `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: {}
  evaluation:
    ledger:
      ${ledger(dir)}
${retention ? `      retention: ${retention}\n` : ''}extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
  );
  return { dir, config };
}

const sqliteLedger = (dir: string) => `sqlite: { path: ${join(dir, 'ledger.db')} }`;

/** Records interactions (taken in, as a collector would have) and closes the store. */
async function fill(store: LedgerStore, records: InteractionRecord[]): Promise<void> {
  await store.putInteractions(records);
  await store.enqueueEvaluations([], { intake: records.map((r) => r.interactionId) });
  await store.close();
}

async function stored(store: LedgerStore, records: InteractionRecord[]): Promise<number> {
  const found = (await store.existingInteractionIds(records.map((r) => r.interactionId))).size;
  await store.close();
  return found;
}

describe('evalon ledger prune', () => {
  it('counts in a dry run what the policy would prune, by kind, and removes nothing; then prunes it', async () => {
    const { dir, config } = setup(sqliteLedger);
    const records = [ended(50), ended(40), ended(10), ended(0)];
    await fill(createSqliteStore({ path: join(dir, 'ledger.db') }), records);

    const dry = await cli(['ledger', 'prune', '--dry-run', '--config', config]);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('retention max_age 30d');
    expect(dry.out).toContain('would prune now:');
    expect(dry.out).toMatch(/ {2}interactions +2 {2}\d/);
    expect(await stored(createSqliteStore({ path: join(dir, 'ledger.db') }), records)).toBe(4);

    const json = await cli(['ledger', 'prune', '--dry-run', '--json', '--config', config]);
    expect(JSON.parse(json.out)).toMatchObject({ dryRun: true, units: 2, tally: { interactions: { count: 2 } } });

    const real = await cli(['ledger', 'prune', '--config', config]);
    expect(real.code).toBe(0);
    expect(real.out).toContain('pruned:');
    expect(real.out).toMatch(/ {2}interactions +2 {2}\d/);
    expect(await stored(createSqliteStore({ path: join(dir, 'ledger.db') }), records)).toBe(2);
  });

  it('refuses to prune while a collector runs on the SQLite file, but counts beside it', async () => {
    const { dir, config } = setup(sqliteLedger);
    await fill(createSqliteStore({ path: join(dir, 'ledger.db') }), [ended(40), ended(0)]);
    const collector = await spawnCollector(config);
    processes.push(collector);
    const refused = await cli(['ledger', 'prune', '--config', config]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      new RegExp(`a collector is running on ${join(dir, 'ledger.db')} \\(pid ${collector.child.pid} on `),
    );
    expect(refused.err).toContain('run with --dry-run beside it');
    const dry = await cli(['ledger', 'prune', '--dry-run', '--config', config]);
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/ {2}interactions +1 {2}\d/);
  });

  it('compacts a ledger file created without incremental vacuum once, turning it on', async () => {
    const { dir, config } = setup(sqliteLedger);
    const path = join(dir, 'ledger.db');
    // A file made by an Evalon before incremental vacuum: auto_vacuum off, set before any table.
    const old = new DatabaseSync(path);
    old.exec('PRAGMA auto_vacuum = NONE');
    old.exec('CREATE TABLE made_before (x)');
    old.close();
    const records = Array.from({ length: 40 }, (_, i) => ({ ...ended(60 - i), finalResponseText: 'z'.repeat(50_000) }));
    await fill(createSqliteStore({ path }), [...records, ended(0)]);
    const result = await cli(['ledger', 'prune', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.err).toContain('compacting the ledger file once');
    expect(result.out).toMatch(
      /compacted the ledger file once, turning on incremental vacuum: [\d.]+ MiB → [\d.]+ KiB/,
    );
    const check = new DatabaseSync(path, { readOnly: true });
    expect(check.prepare('PRAGMA auto_vacuum').get()).toEqual({ auto_vacuum: 2 });
    expect(check.prepare('PRAGMA freelist_count').get()).toEqual({ freelist_count: 0 });
    check.close();
  });

  it('prunes a PostgreSQL ledger, waiting its turn while a replica prunes', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const { config } = setup(() => `postgres: { url: "${database.url}" }`);
    const records = [ended(40), ended(0)];
    await fill(await createPostgresStore({ url: database.url }), records);
    const replica = await createPostgresStore({ url: database.url });
    const lock = await replica.lockPruning();
    try {
      const busy = await cli(['ledger', 'prune', '--config', config]);
      expect(busy.code).toBe(1);
      expect(busy.err).toContain('a collector replica is pruning this ledger right now');
    } finally {
      await lock?.release();
      await replica.close();
    }
    const pruned = await cli(['ledger', 'prune', '--config', config]);
    expect(pruned.code).toBe(0);
    expect(pruned.out).toMatch(/ {2}interactions +1 {2}\d/);
    expect(await stored(await createPostgresStore({ url: database.url }), records)).toBe(1);
  });

  it('says there is nothing to prune when the configuration sets no retention (bad input)', async () => {
    const { config } = setup(sqliteLedger, '');
    const result = await cli(['ledger', 'prune', '--config', config]);
    expect(result.code).toBe(2);
    expect(result.err).toContain(
      'evalon ledger prune: processors::evaluation::ledger::retention sets neither max_age nor max_size',
    );
  });
});
