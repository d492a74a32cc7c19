/**
 * How the store hands its writes to the writer: on a worker thread for a ledger file (the event
 * loop only encodes; SQL, commits and checkpoints run on the other core), or inline for
 * `:memory:`, which a second connection could not see. A write resolves once committed.
 */
import { extname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { LedgerStoreError } from '../errors.ts';
import { createLedgerWriter, type WriteRequest } from './ledger-writer.ts';
import {
  CHECKPOINT_INTERVAL_MS,
  FALLBACK_AUTOCHECKPOINT_PAGES,
  WRITER_CACHE_SIZE_KIB,
  type OpenOptions,
} from './open-database.ts';
import type { CheckpointerMessage, CheckpointerOptions, CheckpointerReply } from './checkpoint-thread.ts';
import type { WriterMessage, WriterReply } from './writer-thread.ts';
import { forTransfer, type Transfer } from './writer-transfer.ts';
import { threadBufferPool } from '../../model/buffer-pool.ts';

export interface WriterClient {
  /** Resolves once committed, with what the request answers (see `LedgerWriter.write`). */
  write(request: WriteRequest): Promise<unknown>;
  /** Stops the writer after the writes already sent. Safe twice. */
  close(): Promise<void>;
}

function writeError(
  path: string,
  error: { message: string; errcode?: number; errstr?: string },
  cause: unknown,
): LedgerStoreError {
  const code = error.errstr ? ` (${error.errstr})` : '';
  return new LedgerStoreError(`ledger ${path}: write failed: ${error.message}${code}`, { cause });
}

export function createInlineWriter(db: DatabaseSync, path: string): WriterClient {
  const writer = createLedgerWriter(db);
  return {
    async write(request) {
      try {
        return writer.write(request);
      } catch (error) {
        throw writeError(path, error as Error, error);
      }
    },
    async close() {},
  };
}

/** The writer and checkpoint threads' modules, named with this module's own extension (.ts in source, .js built). */
const EXTENSION = extname(new URL(import.meta.url).pathname);
const WRITER_THREAD_URL = new URL(`./writer-thread${EXTENSION}`, import.meta.url);
const CHECKPOINT_THREAD_URL = new URL(`./checkpoint-thread${EXTENSION}`, import.meta.url);

/**
 * The writer and checkpoint threads' heaps: an 8 MiB young generation (V8 grew the writer's to
 * 128 MiB under sustained ingest) and a 256 MiB old one, where V8 collects far more eagerly than
 * at its default size (the threads' event loops carry no latency anyone waits on). They allocate
 * little that lives: a request's rows until committed (span bytes are freed then: writer-transfer.ts).
 */
const WRITER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 };

/** The threads' names, as `top -H`, `ps -L` and /proc/<pid>/task/<id>/comm show them (Linux keeps 15 characters). */
export const WRITER_THREAD_NAME = 'evalon-writer';
export const CHECKPOINT_THREAD_NAME = 'evalon-checkpt';

export function createThreadWriter(options: OpenOptions): WriterClient {
  // The WAL is copied back by the checkpoint thread; the writer's own threshold is a safety net.
  const worker = new Worker(WRITER_THREAD_URL, {
    name: WRITER_THREAD_NAME,
    workerData: {
      ...options,
      autocheckpointPages: FALLBACK_AUTOCHECKPOINT_PAGES,
      cacheSizeKib: WRITER_CACHE_SIZE_KIB,
    } satisfies OpenOptions,
    resourceLimits: WRITER_RESOURCE_LIMITS,
  });
  const checkpointer = startCheckpointer(options);
  // Hold the process open only while writes are in flight, like a socket with pending requests.
  worker.unref();
  const pending = new Map<number, { resolve(result?: unknown): void; reject(error: Error): void }>();
  /** What takes back each write's moved buffers (writer-transfer.ts), by request id. */
  const movedBack = new Map<number, (buffers: ArrayBuffer[]) => void>();
  // The buffers span bytes are copied into and moved to the writer in; each comes back with its answer.
  const transfers = threadBufferPool();
  let nextId = 1;
  let failure: Error | undefined;
  let closing: Promise<void> | undefined;

  function fail(error: Error): void {
    failure ??= error;
    for (const waiter of pending.values()) waiter.reject(failure);
    pending.clear();
    movedBack.clear();
  }

  worker.on('message', (reply: WriterReply) => {
    const takeBack = movedBack.get(reply.id);
    movedBack.delete(reply.id);
    if (takeBack && reply.returned) takeBack(reply.returned);
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.error)
      waiter.reject(writeError(options.path, reply.error, Object.assign(new Error(reply.error.message), reply.error)));
    else waiter.resolve(reply.result);
  });
  worker.on('error', (error: unknown) => {
    const text = error instanceof Error ? error.message : String(error);
    fail(new LedgerStoreError(`ledger ${options.path}: the writer thread failed: ${text}`, { cause: error }));
  });
  worker.on('exit', (code) => {
    fail(new LedgerStoreError(`ledger ${options.path}: the writer thread stopped (exit code ${code})`));
  });

  function send(message: { request: WriteRequest } | { close: true }, moved?: Transfer): Promise<unknown> {
    if (failure) return Promise.reject(failure);
    return new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      if (pending.size === 1) worker.ref();
      const buffers = moved?.buffers ?? [];
      if (buffers.length > 0) movedBack.set(id, moved!.returned);
      worker.postMessage({ id, ...message, ...(buffers.length > 0 ? { buffers } : {}) } as WriterMessage, buffers);
    });
  }

  return {
    write(request) {
      const moved = forTransfer(request, transfers);
      return send({ request: moved.request }, moved);
    },
    close() {
      closing ??= (async () => {
        await checkpointer.close();
        if (!failure) await send({ close: true }).catch(() => undefined);
        await worker.terminate();
      })();
      return closing;
    },
  };
}

/**
 * Starts the checkpoint thread (checkpoint-thread.ts). It holds the process open only while
 * closing; its failures are not the writes' failures (the writer's own auto-checkpoint takes over),
 * so they are reported on stderr once, naming the ledger.
 */
function startCheckpointer(options: OpenOptions): { close(): Promise<void> } {
  const worker = new Worker(CHECKPOINT_THREAD_URL, {
    name: CHECKPOINT_THREAD_NAME,
    workerData: { ...options, intervalMs: CHECKPOINT_INTERVAL_MS } satisfies CheckpointerOptions,
    resourceLimits: WRITER_RESOURCE_LIMITS,
  });
  worker.unref();
  let stopped = false;
  const warn = (text: string) => {
    if (!stopped)
      process.stderr.write(
        `ledger ${options.path}: the checkpoint thread ${text} (the writer checkpoints on its own)\n`,
      );
  };
  const closed = new Promise<void>((resolve) => {
    worker.on('message', (reply: CheckpointerReply) => {
      if ('closed' in reply) resolve();
      else warn(`failed: ${reply.error}`);
    });
    worker.on('error', (error: unknown) => warn(`failed: ${error instanceof Error ? error.message : String(error)}`));
    worker.on('exit', () => resolve());
  });
  return {
    async close() {
      if (stopped) return;
      stopped = true;
      worker.ref();
      worker.postMessage({ close: true } satisfies CheckpointerMessage);
      await closed;
      await worker.terminate();
    },
  };
}
