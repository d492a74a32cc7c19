/**
 * The SQLite ledger's writer thread (a worker): owns the one write connection, applies write
 * requests in arrival order, and answers each once committed. Running SQL and checkpoints here
 * keeps them off the collector's event loop, and below its priority (model/thread-priority.ts):
 * acknowledging spans does not wait for this thread (the span log is written on libuv's pool), so
 * under a burst that fills both cores the event loop comes first and the writes catch up after.
 * Started by `writer-client.ts`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThreadPriority } from '../../model/thread-priority.ts';
import { createLedgerWriter, type WriteRequest } from './ledger-writer.ts';
import { openDatabase, type OpenOptions } from './open-database.ts';

export type WriterMessage =
  | {
      id: number;
      request: WriteRequest;
      /** The buffers the request's bytes came in (writer-transfer.ts): moved back with the answer. */
      buffers?: ArrayBuffer[];
    }
  | { id: number; close: true };
export type WriterReply = {
  id: number;
  result?: unknown;
  error?: { name: string; message: string; errcode?: number; errstr?: string };
  /** The message's buffers, moved back in the same order, written or not. */
  returned?: ArrayBuffer[];
};

const port = parentPort;
if (!port) throw new Error('ledger writer thread: must run as a worker thread');
lowerThisThreadPriority();

// Errors here (the file cannot be opened) reach the store as the worker's 'error' event.
const db = openDatabase(workerData as OpenOptions);
const writer = createLedgerWriter(db);

port.on('message', (message: WriterMessage) => {
  if ('close' in message) {
    db.close();
    port.postMessage({ id: message.id } satisfies WriterReply);
    port.close();
    return;
  }
  const moved = message.buffers ?? [];
  const back = moved.length > 0 ? { returned: moved } : {};
  try {
    const result = writer.write(message.request);
    port.postMessage({ id: message.id, result, ...back } satisfies WriterReply, moved);
  } catch (error) {
    const { name, message: text, errcode, errstr } = error as Error & { errcode?: number; errstr?: string };
    port.postMessage(
      { id: message.id, error: { name, message: text, errcode, errstr }, ...back } satisfies WriterReply,
      moved,
    );
  }
});
