/**
 * One collector per SQLite ledger file. Two collectors on one file would both replay the pending
 * spans and build the same interactions (recorded once, but evaluated and exported twice at best).
 * A collector takes `<ledger>.lock` before any work: created exclusively, holding its pid and
 * host. A lock whose process is gone (a collector killed with SIGKILL) is taken over; one held by a
 * live process on this host stops startup, naming it. `evalon explain` and `evalon backfill`
 * take no lock: they run beside a collector.
 *
 * A lock written on another host cannot be checked: a ledger file on a shared disk is refused
 * while that lock exists (remove it by hand once that collector is gone).
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { LedgerInUseError, LedgerStoreError } from '../errors.ts';

export interface CollectorLock {
  release(): void;
}

interface LockContent {
  pid: number;
  host: string;
  since: string;
}

export function takeCollectorLock(ledgerPath: string): CollectorLock {
  const lockPath = `${ledgerPath}.lock`;
  const mine: LockContent = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new LedgerStoreError(
          `ledger ${ledgerPath}: cannot create its lock file ${lockPath}: ${(error as Error).message}`,
          { cause: error },
        );
      }
      const holder = readLock(lockPath);
      if (!holder && justWritten(lockPath)) {
        throw new LedgerInUseError(
          `ledger ${ledgerPath}: another collector is starting on this ledger (lock file ${lockPath} was just created)`,
          `a collector starting (lock file ${lockPath})`,
        );
      }
      if (holder && isAlive(holder)) {
        const who = `pid ${holder.pid} on ${holder.host}, since ${holder.since}; lock file ${lockPath}`;
        throw new LedgerInUseError(
          `ledger ${ledgerPath}: another collector uses this ledger (${who}). ` +
            'Stop it, or give this collector its own processors::evaluation::ledger::sqlite::path; several ' +
            'collectors share a PostgreSQL ledger instead',
          who,
        );
      }
      // Its process is gone (killed, crashed): the lock is stale.
      rmSync(lockPath, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(mine));
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        // Only our own lock: a stale-lock takeover by another process must not be undone.
        if (readLock(lockPath)?.pid === mine.pid && readLock(lockPath)?.host === mine.host)
          rmSync(lockPath, { force: true });
      },
    };
  }
  throw new LedgerStoreError(
    `ledger ${ledgerPath}: could not take its lock file ${lockPath} (another collector keeps taking it)`,
  );
}

function readLock(lockPath: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockPath, 'utf8')) as Partial<LockContent>;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string'
      ? { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? '?') }
      : undefined;
  } catch {
    // Unreadable or half written (its writer died between create and write): treated as stale.
    return undefined;
  }
}

/** An unreadable lock this young may be one whose writer has not written it yet. */
function justWritten(lockPath: string): boolean {
  try {
    return Date.now() - statSync(lockPath).mtimeMs < 2_000;
  } catch {
    return false;
  }
}

/** Whether the holder still runs; a lock from another host is assumed held (it cannot be checked). */
function isAlive(holder: LockContent): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
