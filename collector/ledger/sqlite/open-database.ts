/**
 * Opens a ledger file with the settings every connection to it uses (the store's reader on the
 * main thread and its writer thread alike).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { LedgerStoreError } from '../errors.ts';

/** How long a connection waits for another one's lock before failing. */
export const BUSY_TIMEOUT_MS = 5000;
/**
 * Page size of a new ledger file (SQLite's default is 4096). Span rows are blobs of tens of KB:
 * larger pages mean fewer WAL frames per row; measured 1.5x faster appends than 4096.
 */
export const PAGE_SIZE_BYTES = 16 * 1024;
/**
 * WAL pages after which the writer copies the WAL back into the main file (SQLite's default is
 * 1000): 64 MiB. Released rows' pages are reused, so a page rewritten several times between two
 * checkpoints is copied once; measured 1.4x faster appends than 16 MiB.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 4096;
/**
 * The writer's auto-checkpoint threshold when the checkpoint thread runs (checkpoint-thread.ts):
 * 256 MiB, reached only if that thread falls behind, so the WAL stays bounded.
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 16_384;
/** How often the checkpoint thread copies the WAL back (PASSIVE checkpoints beside the writer). */
export const CHECKPOINT_INTERVAL_MS = 200;
/** Size the WAL file is truncated back to after a checkpoint. */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * Page cache of the connection that writes, in KiB: larger than one big batch (a 1000-span request
 * is 1.4 MB as received), so a transaction never spills.
 */
export const WRITER_CACHE_SIZE_KIB = 16 * 1024;
/**
 * Page cache of the other connections (reads, checkpoints), in KiB. What they read again is in the
 * OS's cache anyway; SQLite allocates a cache in one block, so 32 MiB each cost 32 MiB of memory.
 */
export const CACHE_SIZE_KIB = 4 * 1024;

export type Synchronous = 'normal' | 'full';

export interface OpenOptions {
  path: string;
  synchronous: Synchronous;
  /** The connection's auto-checkpoint threshold in pages (default WAL_AUTOCHECKPOINT_PAGES). */
  autocheckpointPages?: number;
  /** The connection's page cache in KiB (default CACHE_SIZE_KIB; the writer's is WRITER_CACHE_SIZE_KIB). */
  cacheSizeKib?: number;
}

export function openDatabase({
  path,
  synchronous,
  autocheckpointPages = WAL_AUTOCHECKPOINT_PAGES,
  cacheSizeKib = CACHE_SIZE_KIB,
}: OpenOptions): DatabaseSync {
  if (synchronous !== 'normal' && synchronous !== 'full') {
    throw new LedgerStoreError(
      `ledger ${path}: synchronous must be 'normal' or 'full' (got ${JSON.stringify(synchronous)})`,
    );
  }
  let db: DatabaseSync;
  try {
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
    db = new DatabaseSync(path);
  } catch (error) {
    throw new LedgerStoreError(`ledger ${path}: cannot open the ledger file: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Both take effect on a new file only (before its first table), and only a new file is told:
    // setting auto_vacuum takes the write lock, which a connection opened beside the writer (the
    // checkpoint thread's) would then hold for a moment.
    if (isNewFile(db)) {
      db.exec(`PRAGMA page_size = ${PAGE_SIZE_BYTES}`);
      // Space freed by retention goes back to the file system in steps (PRAGMA incremental_vacuum).
      db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    }
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`);
    db.exec(`PRAGMA wal_autocheckpoint = ${autocheckpointPages}`);
    db.exec(`PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
    db.exec(`PRAGMA cache_size = -${cacheSizeKib}`);
  } catch (error) {
    db.close();
    throw new LedgerStoreError(
      `ledger ${path}: cannot use the ledger file: ${(error as Error).message} (is it an SQLite file?)`,
      {
        cause: error,
      },
    );
  }
  return db;
}

/** Whether the file has no table yet (a ledger about to be created). */
function isNewFile(db: DatabaseSync): boolean {
  const row = db.prepare('SELECT count(*) AS tables FROM sqlite_schema').get() as { tables: number };
  return row.tables === 0;
}
