/**
 * Stopping the runtime, in order: no more claims or reads of the queue; what is claimed or
 * running gets a grace period (on the runtime's clock) to finish; then running evaluations are
 * stopped — they stay queued and run again after the restart, as do claimed ones that did not
 * start, durable ones between steps (with their last saved progress) and those waiting out a
 * model outage. Last, every ledger write under way ends, leases are released and the governor
 * stops.
 */
import type { Clock, Timer } from './clock.ts';
import type { EvaluationLeases } from './evaluation-leases.ts';
import type { RunQueue } from './run-queue.ts';
import type { LoadGovernor } from './load-governor.ts';
import type { OutageDeferrals } from './model-outage.ts';
import type { RunScheduler } from './run-scheduler.ts';

/** How long shutdown waits for running evaluations before stopping them (they run again after a restart). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

export class RuntimeStoppedError extends Error {
  constructor() {
    super('the collector is shutting down');
    this.name = 'RuntimeStoppedError';
  }
}

export interface RuntimeParts {
  clock: Clock;
  graceMs: number;
  queue: RunQueue;
  scheduler: RunScheduler;
  outages: OutageDeferrals;
  leases: EvaluationLeases;
  governor: LoadGovernor;
  /** Aborting it stops every running evaluation. */
  stopAll: AbortController;
  /** Resolves once nothing is claimed and no run or outcome write is in flight. */
  quiet(): Promise<void>;
  /** Resolves once every run and outcome write in flight has ended (after the stop). */
  drain(): Promise<void>;
  /** Resolves once every ledger write (attempt counts, progress, outcomes) has committed. */
  writes(): Promise<void>;
}

export async function shutDownRuntime(parts: RuntimeParts): Promise<void> {
  const { clock, queue, scheduler } = parts;
  scheduler.stopClaiming();
  await queue.stop();
  // Claimed evaluations may still run during the grace period; then running ones are stopped.
  if (parts.graceMs > 0) {
    let grace: Timer | undefined;
    const graceOver = new Promise<void>((resolve) => (grace = clock.setTimeout(resolve, parts.graceMs)));
    await Promise.race([parts.quiet(), graceOver]);
    grace?.cancel();
  }
  parts.stopAll.abort(new RuntimeStoppedError());
  scheduler.halt();
  for (const evaluationId of parts.outages.stop()) queue.release(evaluationId);
  await parts.drain();
  await parts.writes();
  await parts.leases.stop();
  parts.governor.stop();
}
