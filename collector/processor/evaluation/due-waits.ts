/**
 * The runtime's side of signal waits (the ledger's: evaluation-waits.ts). A durable evaluation
 * that waits for a signal is parked in the ledger (its progress and deadline written, group
 * committed with others) and leaves the runtime: it holds no run slot, no lease and no memory
 * while it waits. Every `pollMs` on the clock — and at once when `wake()` is called, as after a
 * signal is delivered here — the ledger's indexed due query is read, and what is due (deadline
 * passed, or signal delivered) is handed back to the runtime to resume ahead of other work. A
 * full page is followed at once by the next read.
 */
import type { DurableProgress, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { EvaluationWaits } from '../../ledger/evaluation-waits.ts';
import type { Logger } from '../../logger.ts';
import { isoTime, type Clock, type Timer } from './clock.ts';
import { createGroupCommit, MAX_WRITE_BATCH } from './group-commit.ts';

/** How often the ledger is asked for due waits. */
export const DEFAULT_DUE_POLL_MS = 1_000;
/** Due evaluations read at once. */
const DUE_PAGE = 100;

export interface DueWaitsOptions {
  store: Pick<EvaluationWaits, 'parkEvaluations' | 'loadDueEvaluations'>;
  clock: Clock;
  logger: Logger;
  /** The lease filter (replicas sharing the ledger): only what this runtime could start. */
  claimableNow(): { owner: string; at: string } | undefined;
  /** Due evaluations read back: the runtime resumes them first. */
  resume(evaluations: QueuedEvaluation[]): void;
  pollMs?: number;
}

export interface DueWaits {
  /** Stores the evaluation as parked; resolves once it is (rejects when the write failed). */
  park(evaluation: QueuedEvaluation, progress: DurableProgress): Promise<void>;
  start(): void;
  /** Reads what is due now (after a signal was delivered). */
  wake(): void;
  /** Stops polling; resolves once a read under way has ended. */
  stop(): Promise<void>;
  /** Resolves when no park write is waiting or under way. */
  idle(): Promise<void>;
  stats(): { parked: number; resumed: number };
}

export function createDueWaits(options: DueWaitsOptions): DueWaits {
  const { store, clock, logger } = options;
  const pollMs = options.pollMs ?? DEFAULT_DUE_POLL_MS;
  let timer: Timer | undefined;
  let reading: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let parked = 0;
  let resumed = 0;
  const parks = createGroupCommit<{ seq: number; progress: DurableProgress }, void>(async (batch) => {
    await store.parkEvaluations(batch);
    return batch.map(() => undefined);
  }, MAX_WRITE_BATCH);

  function read(): void {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    again = false;
    reading = store
      .loadDueEvaluations({
        now: isoTime(clock.now()),
        limit: DUE_PAGE,
        ...(options.claimableNow() ? { claimableBy: options.claimableNow()! } : {}),
      })
      .then((due) => {
        if (due.length === 0 || stopped) return;
        resumed += due.length;
        options.resume(due);
        if (due.length === DUE_PAGE) again = true;
      })
      .catch((error: unknown) => {
        logger.error(
          'evaluation: reading the evaluations due after a wait failed: ' +
            `${error instanceof Error ? error.message : String(error)} (retrying in ${pollMs} ms)`,
        );
      })
      .finally(() => {
        reading = undefined;
        if (again) read();
      });
  }

  return {
    async park(evaluation, progress) {
      await parks.add({ seq: evaluation.seq ?? 0, progress });
      parked++;
    },
    start() {
      if (timer || stopped) return;
      timer = clock.setInterval(read, pollMs);
      read();
    },
    wake: read,
    async stop() {
      stopped = true;
      timer?.cancel();
      await reading;
    },
    idle: () => parks.idle(),
    stats: () => ({ parked, resumed }),
  };
}
