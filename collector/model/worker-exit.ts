/**
 * Stopping a worker thread that was told to close: it ends by itself once its port is closed, and
 * `Worker.terminate()` is only for one that does not. Terminating a thread while it is already
 * ending on its own races with its teardown, and that race crashed the process now and then inside
 * V8 (`Check failed: jit_page.has_value()`, or a segmentation fault) in the test suite, which
 * opens and closes hundreds of ledgers and their threads.
 */
import type { Worker } from 'node:worker_threads';

/** How long a thread told to close has to end by itself before it is terminated. */
export const WORKER_CLOSE_GRACE_MS = 5_000;

/**
 * Resolves once `worker` has exited: by itself within `graceMs` (after it was told to close), or
 * else terminated.
 */
export async function awaitWorkerExit(worker: Worker, graceMs = WORKER_CLOSE_GRACE_MS): Promise<void> {
  // A thread that has exited has no id any more.
  if (worker.threadId < 0) return;
  let timer: NodeJS.Timeout | undefined;
  const exited = new Promise<boolean>((resolve) => {
    worker.once('exit', () => resolve(true));
    timer = setTimeout(() => resolve(false), graceMs);
  });
  const byItself = await exited;
  clearTimeout(timer);
  if (!byItself) await worker.terminate();
}
