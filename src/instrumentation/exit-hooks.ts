/**
 * Flushes telemetry when the process ends on its own (`beforeExit`) or is asked to stop (SIGTERM,
 * SIGINT). A signal listener replaces Node's default "exit at once", so after the flush the signal
 * is raised again when no other listener is left to handle it: the process then ends as it would
 * have without us. `process.exit()` runs no asynchronous work: call `shutdown()` before it.
 * Signals reach the main thread only, so a worker thread gets the `beforeExit` hook alone.
 */
import { isMainThread } from 'node:worker_threads';

const SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/** Installs the hooks; returns the function that removes them. */
export function installExitHooks(shutdown: () => Promise<void>): () => void {
  const signals = isMainThread ? SIGNALS : [];
  const onBeforeExit = () => {
    void shutdown();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void shutdown().finally(() => {
      remove();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  };
  process.once('beforeExit', onBeforeExit);
  for (const signal of signals) process.once(signal, onSignal);

  function remove(): void {
    process.removeListener('beforeExit', onBeforeExit);
    for (const signal of signals) process.removeListener(signal, onSignal);
  }
  return remove;
}
