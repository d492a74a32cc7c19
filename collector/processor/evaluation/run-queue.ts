/**
 * The runtime's queue: the queued evaluations it holds in memory, in queue order, and the reading
 * back of those that are only in the ledger. Memory is bounded: at most `maxInMemory` evaluations
 * wait here; beyond that they stay only in the ledger (overflow) and are read back, a page at a
 * time, as the runtime catches up. Starting is the same catching up, from the beginning of the
 * queue, and so is a lease rescan (work no live replica holds).
 *
 * Evaluations resumed after a signal wait (due-waits.ts) come first (`submitFirst`): they are few
 * (a page per read), and a reviewer is waiting for the one their verdict woke.
 *
 * It also knows every evaluation anywhere in the runtime, waiting or running or being recorded
 * (`held`), so neither a submit nor a read of the ledger takes one twice; the runtime releases an
 * evaluation when it leaves (recorded, stopped, or not this runtime's to run).
 */
import type { EvaluationQueue, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { Logger } from '../../logger.ts';
import type { Clock, Timer } from './clock.ts';

const QUEUE_READ_PAGE = 1_000;
const QUEUE_READ_RETRY_MS = 1_000;
/** Compact the waiting list once this many taken entries lead it (and they are most of it). */
const COMPACT_AFTER = 1_024;

export interface QueueStats {
  /** Queued evaluations held in memory, not yet claimed. */
  waiting: number;
  /** Whether some queued evaluations are only in the ledger (memory bound reached). */
  overflow: boolean;
}

export interface RunQueueOptions {
  store: Pick<EvaluationQueue, 'loadQueuedEvaluations'>;
  maxInMemory: number;
  /** A row read back with this many attempts started (each died with its collector) is abandoned. */
  maxAttempts: number;
  /** Which rows read back this runtime runs (default: all). */
  accept?(evaluation: QueuedEvaluation): boolean;
  /** The lease filter for reading claimable rows now, if replicas share the ledger. */
  claimableNow(): { owner: string; at: string } | undefined;
  clock: Clock;
  logger: Logger;
  /** A row read back whose attempts are used up: the runtime records it as failed (it stays held). */
  onAbandoned(evaluation: QueuedEvaluation): void;
  /** A read of the ledger ended, or its retry is due: the runtime moves on. */
  onChange(): void;
}

export interface RunQueue {
  /** Takes in evaluations already durable in the ledger (or notes that only the ledger has them). */
  submit(evaluations: readonly QueuedEvaluation[]): void;
  /**
   * Takes in resumed evaluations ahead of the others, whatever the memory bound (the ledger's queue
   * read skips them, so they cannot wait there); one whose attempts are used up is abandoned.
   */
  submitFirst(evaluations: readonly QueuedEvaluation[]): void;
  /** The next waiting evaluation, which stays held. */
  next(): QueuedEvaluation | undefined;
  size(): number;
  /** The evaluation left the runtime: a later read of the ledger may take it again. */
  release(evaluationId: string): void;
  /** Reads back from the ledger, if some evaluations are only there and memory has room. */
  refill(): void;
  /** Reads the whole queue again from its beginning (at start). */
  readFromStart(): void;
  /** The same, unless a read-back is under way already (a lease rescan). */
  rescan(): void;
  /** Whether nothing is only in the ledger (or the queue has stopped) and no read is under way. */
  caughtUp(): boolean;
  /** Reads no more; resolves once a read under way has ended. */
  stop(): Promise<void>;
  stats(): QueueStats;
}

export function createRunQueue(options: RunQueueOptions): RunQueue {
  const { store, clock, logger } = options;
  const maxInMemory = Math.max(1, options.maxInMemory);
  let waiting: QueuedEvaluation[] = [];
  let head = 0;
  const first: QueuedEvaluation[] = [];
  const held = new Set<string>();
  let overflow = false;
  /** In overflow, the queue is read from after this seq; `highestSubmitted` is what it must reach. */
  let readThrough = 0;
  let highestSubmitted = 0;
  let reading: Promise<void> | undefined;
  /** After a failed read, the next waits this long (no busy loop on a broken ledger). */
  let readRetry: Timer | undefined;
  let stopped = false;

  const size = () => waiting.length - head + first.length;

  function hold(evaluation: QueuedEvaluation): void {
    held.add(evaluation.evaluationId);
    waiting.push(evaluation);
  }

  function read(): void {
    if (reading || readRetry || !overflow || stopped || size() > maxInMemory / 2) return;
    const target = highestSubmitted;
    const limit = Math.min(maxInMemory - size(), QUEUE_READ_PAGE);
    reading = store
      .loadQueuedEvaluations({ afterSeq: readThrough, limit, claimableBy: options.claimableNow() })
      .then((rows) => {
        for (const row of rows) {
          readThrough = Math.max(readThrough, row.seq ?? 0);
          if (held.has(row.evaluationId) || (options.accept && !options.accept(row))) continue;
          if (row.attempts >= options.maxAttempts) {
            held.add(row.evaluationId);
            options.onAbandoned(row);
          } else hold(row);
        }
        if (rows.length < limit) {
          // Everything queued before the read began has been seen.
          readThrough = Math.max(readThrough, target);
          if (readThrough >= highestSubmitted) overflow = false;
        }
      })
      .catch((error: unknown) => {
        logger.error(
          'evaluation: reading the evaluation queue failed: ' +
            `${error instanceof Error ? error.message : String(error)} (retrying in ${QUEUE_READ_RETRY_MS} ms)`,
        );
        readRetry = clock.setTimeout(
          () => {
            readRetry = undefined;
            options.onChange();
          },
          QUEUE_READ_RETRY_MS,
          { background: true },
        );
      })
      .finally(() => {
        reading = undefined;
        options.onChange();
      });
  }

  function readFromStart(): void {
    if (stopped) return;
    overflow = true;
    readThrough = 0;
    read();
  }

  return {
    submit(evaluations) {
      for (const evaluation of evaluations) {
        highestSubmitted = Math.max(highestSubmitted, evaluation.seq ?? 0);
        if (held.has(evaluation.evaluationId)) continue;
        if (overflow || size() >= maxInMemory) {
          // From here on the queue is read back from the ledger, starting with this evaluation.
          if (!overflow) readThrough = (evaluation.seq ?? 1) - 1;
          overflow = true;
          continue;
        }
        hold(evaluation);
      }
    },
    submitFirst(evaluations) {
      for (const evaluation of evaluations) {
        if (held.has(evaluation.evaluationId)) continue;
        held.add(evaluation.evaluationId);
        if (evaluation.attempts >= options.maxAttempts) options.onAbandoned(evaluation);
        else first.push(evaluation);
      }
    },
    next() {
      if (first.length > 0) return first.shift();
      if (size() === 0) return undefined;
      const evaluation = waiting[head++];
      if (head > COMPACT_AFTER && head * 2 > waiting.length) {
        waiting = waiting.slice(head);
        head = 0;
      }
      return evaluation;
    },
    size,
    release(evaluationId) {
      held.delete(evaluationId);
    },
    refill: read,
    readFromStart,
    rescan() {
      if (!overflow) readFromStart();
    },
    caughtUp: () => !reading && (!overflow || stopped),
    async stop() {
      stopped = true;
      readRetry?.cancel();
      readRetry = undefined;
      await reading;
    },
    stats: () => ({ waiting: size(), overflow }),
  };
}
