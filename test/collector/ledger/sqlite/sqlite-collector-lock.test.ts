/**
 * One collector per SQLite ledger file: the second collector on a file stops at startup naming
 * the first (pid, host, lock file); the lock goes with a clean stop; a lock left by a collector
 * killed with SIGKILL is taken over; read-only commands (no claim) are not blocked. Through the
 * real CLI for the two-collector case.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createSqliteStore, type SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { testConfigYaml } from '../../../helpers/collector.ts';
import { spawnCollector, type CollectorProcess } from '../../../helpers/collector-process.ts';

const dirs: string[] = [];
const stores: SqliteLedgerStore[] = [];
const processes: CollectorProcess[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) {
    p.child.kill('SIGKILL');
    await p.exited;
  }
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ledgerPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-lock-'));
  dirs.push(dir);
  return join(dir, 'ledger.db');
}

function open(path: string): SqliteLedgerStore {
  const store = createSqliteStore({ path });
  stores.push(store);
  return store;
}

it('lets one store claim a ledger file; a second claim fails naming the holder; a clean close frees it', async () => {
  const path = ledgerPath();
  const first = open(path);
  await first.claimReplica!();
  expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
  const second = open(path);
  await expect(second.claimReplica!()).rejects.toThrow(
    new RegExp(
      `ledger ${path}: another collector uses this ledger \\(pid ${process.pid} on .*lock file ${path}\\.lock\\)`,
    ),
  );
  // Reading beside the holder (what explain and backfill do) needs no claim.
  expect(await second.countInteractions({})).toBe(0);
  await first.close();
  expect(existsSync(`${path}.lock`)).toBe(false);
  await second.claimReplica!();
  expect(existsSync(`${path}.lock`)).toBe(true);
});

it('takes over the lock of a process that is gone', async () => {
  const path = ledgerPath();
  // A process that has exited: its pid is free.
  const gone = spawn(process.execPath, ['-e', '0']);
  const pid = gone.pid!;
  await new Promise((resolve) => gone.once('exit', resolve));
  writeFileSync(
    `${path}.lock`,
    JSON.stringify({ pid, host: (await import('node:os')).hostname(), since: '2026-11-29T00:00:00.000Z' }),
  );
  const store = open(path);
  await store.claimReplica!();
  expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
});

it('refuses a second collector on one ledger file, and ' +
  'starts again after the first was killed with SIGKILL', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-lock-cli-'));
  dirs.push(dir);
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(configFile, testConfigYaml(dir));
  const first = await spawnCollector(configFile);
  processes.push(first);
  const second = await spawnCollector(configFile).then(
    (started) => {
      processes.push(started);
      return undefined;
    },
    (error: unknown) => error as Error,
  );
  expect(second?.message).toMatch(/exited with 1 before listening/);
  expect(second?.message).toMatch(/another collector uses this ledger \(pid \d+/);
  first.child.kill('SIGKILL');
  await first.exited;
  const third = await spawnCollector(configFile);
  processes.push(third);
  expect(third.log()).toMatch(/listening/);
}, 60_000);
