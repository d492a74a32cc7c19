/**
 * The runtime's scheduler: which queued evaluations are claimed (their attempt counted in the
 * ledger) and when each one gets a run slot. At most `concurrency` slots are held at once, and a
 * slot is held only while an evaluator (or a durable evaluator's step) runs, so fast code
 * evaluators are not held back by ledger round trips and long multi-step judges do not keep
 * others waiting between their steps. Durable evaluations waiting for their next step go before
 * new ones, so started work finishes first. The load governor decides how many runs may start
 * while the event loop is saturated; it calls back when the next window opens.
 */
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { Logger } from '../../logger.ts';
import { isoTime, type Clock } from './clock.ts';
import type { StepSlot } from './durable-execution.ts';
import type { RunQueue } from './run-queue.ts';
import type { LoadGovernor } from './load-governor.ts';

/**
 * How many evaluations may be claimed ahead of a free run slot: as many as the slots run in
 * CLAIM_AHEAD_MS at the recent pace, between `concurrency` and MAX_CLAIM_WINDOW. Fast code
 * evaluators then take a burst of triggers in a few large ledger writes; slow ones (LLM judges)
 * claim no more than they run, so a crash counts few attempts that had not started.
 */
const CLAIM_AHEAD_MS = 50;
const MAX_CLAIM_WINDOW = 2_048;
/** Weight of the newest run time in the moving average of run times. */
const RUN_TIME_WEIGHT = 0.1;

export interface SchedulerStats {
  /** Claimed (attempt counted or being counted), waiting for a run slot. */
  claimed: number;
  /** Evaluators (or durable evaluators' steps) running now (at most `concurrency`). */
  running: number;
  started: number;
  /** Evaluations not started because another replica holds them (or they were recorded meanwhile). */
  takenElsewhere: number;
}

/** An evaluation whose attempt is counted, and when that attempt started. */
export interface Claimed {
  evaluation: QueuedEvaluation;
  startedAt: string;
}

export interface RunSchedulerOptions {
  concurrency: number;
  governor: LoadGovernor;
  clock: Clock;
  logger: Logger;
  queue: Pick<RunQueue, 'next' | 'release'>;
  /**
   * Whether a queued evaluation may be claimed now; false hands it back to the runtime, which
   * owns it from then on (a token budget that is spent: it is dropped, not run). Default: all.
   */
  admit?(evaluation: QueuedEvaluation): boolean;
  /** Counts the evaluation's attempt in the ledger (and takes its lease); whether this runtime runs it. */
  countAttempt(evaluation: QueuedEvaluation, startedAt: string): Promise<boolean>;
  /**
   * Runs a claimed evaluation, which holds `slot`. Resolves (never rejects) once the run is over,
   * saying whether it held its slot step by step (a durable evaluation).
   */
  run(claimed: Claimed, slot: StepSlot): Promise<{ stepwise: boolean }>;
  /** The collector stopping: no slot is granted once it is aborted. */
  signal: AbortSignal;
  /** A claim or a run ended: the runtime moves on. */
  onChange(): void;
}

export interface RunScheduler {
  /** Claims ahead of the free slots, then starts what the slots and the governor allow now. */
  pump(): void;
  /** Runs an evaluation again without counting another attempt (its model outage wait is over). */
  rerun(evaluation: QueuedEvaluation): void;
  /** Claims no more (shutdown began); what is claimed may still run. */
  stopClaiming(): void;
  /**
   * After the stop signal: claimed evaluations that did not start, and durable ones between
   * steps, stop where they are (they stay queued in the ledger).
   */
  halt(): void;
  stats(): SchedulerStats;
}

export function createRunScheduler(options: RunSchedulerOptions): RunScheduler {
  const { concurrency, governor, clock, logger, queue, signal } = options;
  const ready: Claimed[] = [];
  /** Durable evaluations waiting for a run slot for their next step. */
  const stepWaiters: Array<(granted: boolean) => void> = [];
  let claimed = 0;
  let running = 0;
  let started = 0;
  let takenElsewhere = 0;
  let claiming = true;
  let halted = false;
  /** Moving average of evaluator run times (ms); unknown until the first evaluations finish. */
  let averageRunMs: number | undefined;

  function claimWindow(): number {
    if (averageRunMs === undefined) return concurrency;
    const paced = (concurrency * CLAIM_AHEAD_MS) / Math.max(averageRunMs, 0.01);
    return Math.round(Math.min(MAX_CLAIM_WINDOW, Math.max(concurrency, paced)));
  }

  function claim(evaluation: QueuedEvaluation): void {
    claimed++;
    const startedAt = isoTime(clock.now());
    options.countAttempt(evaluation, startedAt).then(
      (counted) => {
        if (counted && !halted) ready.push({ evaluation, startedAt });
        else {
          // Another replica holds it, or its outcome was recorded meanwhile: not this runtime's to run.
          if (!counted) takenElsewhere++;
          claimed--;
          queue.release(evaluation.evaluationId);
        }
        options.onChange();
      },
      (error: unknown) => {
        claimed--;
        queue.release(evaluation.evaluationId);
        logger.error(
          `evaluation ${evaluation.evaluationId}: counting its attempt failed: ` +
            `${error instanceof Error ? error.message : String(error)} (it runs at the next start)`,
        );
        options.onChange();
      },
    );
  }

  function run(next: Claimed): void {
    claimed--;
    running++;
    started++;
    const began = clock.now();
    const slot: StepSlot = {
      held: true,
      acquire: () =>
        new Promise<boolean>((resolve) => {
          if (signal.aborted) resolve(false);
          else {
            stepWaiters.push(resolve);
            options.onChange();
          }
        }),
      release: () => {
        running--;
        options.onChange();
      },
    };
    void options.run(next, slot).then(({ stepwise }) => {
      if (slot.held) running--;
      // Durable evaluations wait between steps: their run time says nothing of the slots' pace.
      if (!stepwise) {
        const took = clock.now() - began;
        averageRunMs = averageRunMs === undefined ? took : averageRunMs + RUN_TIME_WEIGHT * (took - averageRunMs);
      }
      options.onChange();
    });
  }

  return {
    pump() {
      const window = claimWindow();
      while (claiming && claimed < window) {
        const evaluation = queue.next();
        if (!evaluation) break;
        if (options.admit && !options.admit(evaluation)) continue;
        claim(evaluation);
      }
      while (
        running < concurrency &&
        (stepWaiters.length > 0 || ready.length > 0) &&
        !signal.aborted &&
        governor.tryStart()
      ) {
        if (stepWaiters.length > 0) {
          running++;
          stepWaiters.shift()!(true);
        } else run(ready.shift()!);
      }
    },
    rerun(evaluation) {
      if (!claiming) {
        queue.release(evaluation.evaluationId);
        return;
      }
      claimed++;
      ready.push({ evaluation, startedAt: isoTime(clock.now()) });
      options.onChange();
    },
    stopClaiming() {
      claiming = false;
    },
    halt() {
      halted = true;
      for (const { evaluation } of ready.splice(0)) {
        claimed--;
        queue.release(evaluation.evaluationId);
      }
      for (const resolve of stepWaiters.splice(0)) resolve(false);
    },
    stats: () => ({ claimed, running, started, takenElsewhere }),
  };
}
