/**
 * The SQLite ledger's checkpointer (a worker): copies committed WAL frames back into the ledger
 * file with PASSIVE checkpoints on its own connection, every `intervalMs`. A checkpoint run by the
 * writer itself (SQLite's auto-checkpoint) stalls every write queued behind the commit that
 * triggers it — ~150–250 ms for a 64 MiB WAL under sustained ingest, the tail of the verdict lag.
 * Here it runs beside the writer: PASSIVE never takes the write lock, so appends go on while pages
 * are copied, and once a checkpoint has caught up the writer starts the WAL over.
 *
 * The writer keeps a high auto-checkpoint threshold as a safety net (`FALLBACK_AUTOCHECKPOINT_PAGES`
 * in open-database.ts), so the WAL stays bounded even if this thread falls behind or stops.
 * Started and stopped by `writer-client.ts`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase, type OpenOptions } from './open-database.ts';

export interface CheckpointerOptions extends OpenOptions {
  intervalMs: number;
}

export type CheckpointerMessage = { close: true };
export type CheckpointerReply = { closed: true } | { error: string };

const port = parentPort;
if (!port) throw new Error('ledger checkpoint thread: must run as a worker thread');

const options = workerData as CheckpointerOptions;
const db = openDatabase(options);
// This connection never checkpoints on its own commits (it makes none): only on the timer.
db.exec('PRAGMA wal_autocheckpoint = 0');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let reported = false;

const timer = setInterval(() => {
  try {
    checkpoint.get();
    reported = false;
  } catch (error) {
    // SQLITE_BUSY (another checkpoint running) and the like: the next tick tries again. Said once.
    if (!reported) port.postMessage({ error: (error as Error).message } satisfies CheckpointerReply);
    reported = true;
  }
}, options.intervalMs);

port.on('message', (message: CheckpointerMessage) => {
  if (!message.close) return;
  clearInterval(timer);
  db.close();
  port.postMessage({ closed: true } satisfies CheckpointerReply);
  port.close();
});
