/**
 * Where the records of decided interactions are built (record-builder.ts): on a thread of its own
 * (`createThreadRecorder`, what the collector runs), or on the caller's (`createInlineRecorder`).
 * Building is most of what recording costs — decoding every span of every decided trace, reading
 * it in its dialect, encoding the record — and on the recorder thread it no longer holds up the
 * event loop that receives and acknowledges spans, nor fills its heap.
 *
 * `build` reads the rows given as bytes before it returns (a thread recorder copies them into the
 * job's buffer): the caller may let go of them at once, even while the build is in progress. Rows
 * located in the ledger's files are read by the build itself (on the thread): the caller lets go
 * of them once the build has settled.
 * A recorder thread that fails (it cannot start, or stops) fails the builds it had and every build
 * after: the caller builds them inline from the ledger instead (recording.ts).
 */
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { copyTogether, threadBufferPool, type BufferPool } from '../../model/buffer-pool.ts';
import { markOwned } from '../../model/owned-buffers.ts';
import { isLocated } from '../../ledger/span-store.ts';
import { buildTraces, type BuiltTraces, type TraceToRecord } from './record-builder.ts';
import type { RecorderMessage, RecorderReply, RecorderTrace } from './recorder-thread.ts';

export interface Recorder {
  build(traces: readonly TraceToRecord[]): Promise<BuiltTraces>;
  /** Stops the thread after the builds in flight. Safe twice. */
  close(): Promise<void>;
}

/** A build failed because the recorder thread did (not because of what it was given). */
export class RecorderThreadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RecorderThreadError';
  }
}

export function createInlineRecorder(): Recorder {
  return {
    build: (traces) => {
      try {
        return Promise.resolve(buildTraces(traces));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async close() {},
  };
}

/** Traces a job sent to the thread holds at most (a few hundred spans: a few MB to allocate). */
export const TRACES_PER_JOB = 32;
/** Stored bytes a job holds at most, unless one trace alone is larger. */
export const JOB_BYTES = 4 * 1024 * 1024;

/** The thread's module, named with this module's own extension (.ts in source, .js built). */
const THREAD_URL = new URL(`./recorder-thread${extname(new URL(import.meta.url).pathname)}`, import.meta.url);

/**
 * The thread's heap: what it allocates lives for one job (32 traces, a few MB), and it keeps
 * nothing between jobs, so a 16 MiB young generation and a 256 MiB old one hold it (room for a
 * job of one trace of tens of MB; a trace that does not fit fails the thread, and the processor
 * builds inline from then on): with more, V8 grew its heap to hundreds of MiB it never needed
 * (docs/benchmarks.md, "Ingest").
 */
const RECORDER_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 256 };

/** The thread's name, as `top -H`, `ps -L` and /proc/<pid>/task/<id>/comm show it (Linux keeps 15 characters). */
export const RECORDER_THREAD_NAME = 'evalon-recorder';

export interface ThreadRecorderOptions {
  /** Compress each record's JSON on the thread too (`InteractionStore.compressesRecords`). */
  compressRecords?: boolean;
  /** The thread's module (tests give one that fails). */
  threadUrl?: URL;
}

export function createThreadRecorder(options: ThreadRecorderOptions = {}): Recorder {
  const { compressRecords = false, threadUrl = THREAD_URL } = options;
  const pending = new Map<number, { resolve(result: BuiltTraces): void; reject(error: Error): void }>();
  // The jobs' buffers: each comes back with the thread's answer and carries the next job.
  const buffers = threadBufferPool();
  let worker: Worker | undefined;
  /** Builds not answered yet: closing waits for them. */
  const inFlight = new Set<Promise<BuiltTraces>>();
  let nextId = 1;
  let failure: Error | undefined;
  let closing: Promise<void> | undefined;

  function fail(error: Error): void {
    failure ??= error;
    for (const waiter of pending.values()) waiter.reject(failure);
    pending.clear();
  }

  /** The thread, started by the first build. */
  function thread(): Worker {
    if (worker) return worker;
    const started = new Worker(threadUrl, { name: RECORDER_THREAD_NAME, resourceLimits: RECORDER_RESOURCE_LIMITS });
    started.unref();
    started.on('message', (reply: RecorderReply) => {
      buffers.give(reply.returned);
      const waiter = pending.get(reply.id);
      if (!waiter) return;
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if (reply.error) waiter.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }));
      else {
        // The records' JSON came in a buffer of its own that only these rows view: it may move on
        // to the ledger's writer and back instead of being copied.
        for (const { row } of reply.result!.built)
          if (typeof row.json === 'object') markOwned(row.json.buffer as ArrayBuffer);
        waiter.resolve(reply.result!);
      }
    });
    started.on('error', (error: unknown) => {
      const text = error instanceof Error ? error.message : String(error);
      fail(new RecorderThreadError(`interactions: the recorder thread failed: ${text}`, { cause: error }));
    });
    started.on('exit', (code) => {
      fail(new RecorderThreadError(`interactions: the recorder thread stopped (exit code ${code})`));
    });
    worker = started;
    return started;
  }

  return {
    build(traces) {
      if (failure) return Promise.reject(failure);
      if (closing) return Promise.reject(new RecorderThreadError('interactions: the recorder is closed'));
      const target = thread();
      // Jobs of a few traces: what one job builds is answered (and let go) before the thread's
      // next scavenge, instead of a tick's worth of records surviving into its old generation.
      const jobs: Promise<BuiltTraces>[] = [];
      for (const part of jobsOf(traces)) {
        const { job, buffer } = pack(part, buffers);
        jobs.push(
          new Promise<BuiltTraces>((resolve, reject) => {
            const id = nextId++;
            pending.set(id, { resolve, reject });
            if (pending.size === 1) target.ref();
            target.postMessage({ id, traces: job, buffer, compress: compressRecords } satisfies RecorderMessage, [
              buffer,
            ]);
          }),
        );
      }
      // Settled once every job has (a job may be reading located rows while another has failed).
      const built = Promise.allSettled(jobs).then((settled) => {
        const results: BuiltTraces[] = [];
        for (const job of settled) {
          if (job.status === 'rejected') throw job.reason;
          results.push(job.value);
        }
        return {
          built: results.flatMap((result) => result.built),
          incomplete: results.flatMap((result) => result.incomplete),
          missingRoot: results.flatMap((result) => result.missingRoot),
        };
      });
      inFlight.add(built);
      void built.finally(() => inFlight.delete(built)).catch(() => undefined);
      return built;
    },
    close() {
      closing ??= (async () => {
        if (!worker) return;
        await Promise.allSettled([...inFlight]);
        worker.postMessage({ close: true } satisfies RecorderMessage);
        await worker.terminate();
      })();
      return closing;
    },
  };
}

/** The traces cut into jobs of at most TRACES_PER_JOB traces and JOB_BYTES (or one trace). */
function jobsOf(traces: readonly TraceToRecord[]): TraceToRecord[][] {
  const jobs: TraceToRecord[][] = [];
  let job: TraceToRecord[] = [];
  let bytes = 0;
  for (const trace of traces) {
    let size = 0;
    for (const row of trace.rows) size += isLocated(row) ? row.length : row.bytes.byteLength;
    if (job.length > 0 && (job.length === TRACES_PER_JOB || bytes + size > JOB_BYTES)) {
      jobs.push(job);
      job = [];
      bytes = 0;
    }
    job.push(trace);
    bytes += size;
  }
  if (job.length > 0) jobs.push(job);
  return jobs;
}

/**
 * Every row's bytes copied, back to back, into one buffer of the pool; the rows become ranges of it.
 * Rows located in the ledger's files go as they are: the thread reads them itself.
 */
function pack(traces: readonly TraceToRecord[], pool: BufferPool): { job: RecorderTrace[]; buffer: ArrayBuffer } {
  const { bytes, copies } = copyTogether(
    pool,
    traces.flatMap((trace) => trace.rows.flatMap((row) => (isLocated(row) ? [] : [row.bytes]))),
  );
  let next = 0;
  const job = traces.map(({ traceId, rows, decisions, maybePartial }) => ({
    traceId,
    decisions,
    maybePartial,
    rows: rows.map((row) => {
      if (isLocated(row)) return row;
      const copy = copies[next++];
      return { codec: row.codec, start: copy.byteOffset, end: copy.byteOffset + copy.byteLength };
    }),
  }));
  return { job, buffer: bytes.buffer as ArrayBuffer };
}
