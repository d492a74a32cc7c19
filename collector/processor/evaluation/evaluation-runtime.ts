/**
 * The evaluation runtime: runs queued evaluations in the background, at most `concurrency`
 * evaluators at once, and records each outcome in the ledger exactly once.
 *
 * Every evaluation it runs is already durable in the ledger's queue (the processor queued it
 * before submitting). Each one goes through three stages: its attempt is counted in the ledger
 * (claimed), the evaluator runs (a new instance, under its timeout), and the outcome is recorded,
 * removing the evaluation from the queue in the same transaction. Ledger writes of many
 * evaluations share one transaction (group commit), and a run slot is held only while the
 * evaluator runs, so fast code evaluators are not held back by ledger round trips.
 *
 * A collector that dies mid-evaluation runs it again after the restart (an evaluator may run more
 * than once), but the ledger keeps at most one outcome per (interaction, evaluator, version). An
 * evaluation whose attempts all died with the collector (`maxAttempts`) is recorded as failed.
 *
 * One attempt (attempt-executor.ts) runs a plain evaluator once, or a durable one step by step
 * (durable-execution.ts): its progress is saved after every step, it holds a run slot only while
 * a step runs, and after a restart it resumes with the step after the last completed one. A
 * failure because the model is unavailable is waited out, not recorded (model-outage.ts). With
 * replicas sharing the ledger, every start takes a lease (evaluation-leases.ts).
 *
 * Memory is bounded: at most `maxInMemory` queued evaluations are held; beyond that they stay
 * only in the ledger and are read back, in queue order, as the runtime catches up. Starting is
 * the same catching up, from the beginning of the queue.
 */
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { DurableProgress, EvaluationQueue, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { RecordedEvaluations } from '../../ledger/recorded-evaluations.ts';
import { DEFAULT_UNAVAILABLE_RETRY_FOR_MS } from '../../config/components/evaluation-processor.ts';
import type { Logger } from '../../logger.ts';
import { abandonedRecord, createFailureLog } from './evaluation-outcomes.ts';
import type { StepSlot } from './durable-execution.ts';
import { createAttemptExecutor } from './attempt-executor.ts';
import { createEvaluationLeases, type LeaseOption } from './evaluation-leases.ts';
import { createOutageDeferrals } from './model-outage.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import { createGroupCommit } from './group-commit.ts';
import { UNLIMITED, type LoadGovernor } from './load-governor.ts';
import { createStoreLedgerClient, type CachingLedgerClient } from './store-ledger-client.ts';

export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_MAX_IN_MEMORY = 20_000;
/** How long shutdown waits for running evaluations before stopping them (they run again after a restart). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;
/** Rows per ledger transaction of attempt counts or outcomes. */
const MAX_WRITE_BATCH = 2_000;
const QUEUE_READ_RETRY_MS = 1_000;
/**
 * How many evaluations may be claimed (attempt counted) ahead of a free run slot: as many as the
 * slots run in CLAIM_AHEAD_MS at the recent pace, between `concurrency` and MAX_CLAIM_WINDOW.
 * Fast code evaluators then take a burst of triggers in a few large ledger writes; slow ones (LLM
 * judges) claim no more than they run, so a crash counts few attempts that had not started.
 */
const CLAIM_AHEAD_MS = 50;
const MAX_CLAIM_WINDOW = 2_048;
/** Weight of the newest run time in the moving average of run times. */
const RUN_TIME_WEIGHT = 0.1;
const QUEUE_READ_PAGE = 1_000;

export interface RuntimeStats {
  /** Queued evaluations held in memory, not yet claimed. */
  waiting: number;
  /** Claimed (attempt counted or being counted), waiting for a run slot. */
  claimed: number;
  /** Evaluators (or durable evaluators' steps) running now (at most `concurrency`). */
  running: number;
  /** Whether some queued evaluations are only in the ledger (memory bound reached). */
  overflow: boolean;
  started: number;
  recorded: number;
  verdicts: number;
  passed: number;
  inconclusive: number;
  failed: number;
  /** Outcomes dropped because the ledger already had one for their key. */
  duplicates: number;
  /** Evaluations waiting to run again because their model was unavailable (an outage, not a verdict). */
  deferred: number;
  /** Evaluations not started because another replica holds them (or they were recorded meanwhile). */
  takenElsewhere: number;
  /** Leases lost to another replica while held here (this replica stalled longer than a lease). */
  leasesLost: number;
}

export interface EvaluationRuntimeOptions {
  store: EvaluationQueue & InteractionStore & RecordedEvaluations;
  registry: EvaluatorRegistry;
  /**
   * `config()` and `control-id` for an evaluation, resolved from the running configuration. Called
   * again before every step of a durable evaluation, so later steps see a changed configuration.
   */
  resolve(evaluation: QueuedEvaluation): { config: Record<string, unknown>; controlId?: string };
  concurrency: number;
  maxAttempts?: number;
  maxInMemory?: number;
  shutdownGraceMs?: number;
  /**
   * How long an evaluation keeps being run again while its model is unavailable (a model call that
   * failed with a retryable error after its own retries: 429, 5xx, 529, a connection error) before
   * it is recorded as failed. Default 1 hour. A durable evaluation is also bounded by its evaluation timeout.
   */
  unavailableRetryForMs?: number;
  /** Wait before such a run again: doubling from `baseMs` up to `maxMs` (default 1 s to 30 s). */
  unavailableBackoff?: { baseMs: number; maxMs: number };
  /**
   * Replicas sharing the ledger's queue (PostgreSQL): every start takes a lease for `owner` that
   * lasts `durationMs`, renewed while the evaluation is held here and released at shutdown; every
   * `rescanMs` (default `durationMs`) the queue is read again for evaluations no live replica
   * holds (queued by another, or left by one that died), which this runtime then starts.
   */
  lease?: LeaseOption;
  clock?: () => number;
  logger: Logger;
  /** Called with each outcome once it is recorded (not for duplicates). */
  onRecorded?(record: EvaluationRecord): void;
  /** What evaluators read the ledger through (default: the store, with a record cache). */
  ledger?: CachingLedgerClient;
  /**
   * Which queued evaluations read back from the ledger this runtime runs (default: all). A
   * backfill runs only its own; the collector runs every one, backfills left unfinished included.
   */
  accept?(evaluation: QueuedEvaluation): boolean;
  /** Limits evaluation starts while the event loop is saturated (default: no limit). */
  governor?: LoadGovernor;
}

export interface EvaluationRuntime {
  /** Reads the ledger's queue (evaluations left by a previous run) and starts running. */
  start(): Promise<void>;
  /** Runs evaluations that are already durable in the ledger's queue. */
  submit(evaluations: readonly QueuedEvaluation[]): void;
  /** Resolves when nothing is waiting, running or being written. */
  idle(): Promise<void>;
  /** Stops claiming, gives claimed and running evaluations a grace period, then stops them. Safe twice. */
  shutdown(): Promise<void>;
  readonly stats: RuntimeStats;
}

interface Claimed {
  evaluation: QueuedEvaluation;
  startedAt: string;
}

export function createEvaluationRuntime(options: EvaluationRuntimeOptions): EvaluationRuntime {
  const { store, registry, logger, concurrency } = options;
  /** Moving average of evaluator run times (ms); unknown until the first evaluations finish. */
  let averageRunMs: number | undefined;
  const claimWindow = () =>
    averageRunMs === undefined
      ? concurrency
      : Math.round(
          Math.min(
            MAX_CLAIM_WINDOW,
            Math.max(concurrency, (concurrency * CLAIM_AHEAD_MS) / Math.max(averageRunMs, 0.01)),
          ),
        );
  const clock = options.clock ?? Date.now;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const maxInMemory = Math.max(1, options.maxInMemory ?? DEFAULT_MAX_IN_MEMORY);
  const ledger = options.ledger ?? createStoreLedgerClient(store);
  const governor = options.governor ?? UNLIMITED;
  governor.onWindow(() => pump());
  const logFailure = createFailureLog(logger, clock);
  const stopAll = new AbortController();
  const stats: RuntimeStats = {
    waiting: 0,
    claimed: 0,
    running: 0,
    overflow: false,
    started: 0,
    recorded: 0,
    verdicts: 0,
    passed: 0,
    inconclusive: 0,
    failed: 0,
    duplicates: 0,
    deferred: 0,
    takenElsewhere: 0,
    leasesLost: 0,
  };
  const execute = createAttemptExecutor({
    registry,
    ledger,
    resolve: options.resolve,
    saveProgress: (update) => progressSaves.add(update),
    signal: stopAll.signal,
    clock,
  });
  const leases = createEvaluationLeases({
    store,
    ...(options.lease ? { lease: options.lease } : {}),
    clock,
    logger,
    stats,
  });
  const outages = createOutageDeferrals({
    retryForMs: options.unavailableRetryForMs ?? DEFAULT_UNAVAILABLE_RETRY_FOR_MS,
    ...(options.unavailableBackoff ? { backoff: options.unavailableBackoff } : {}),
    clock,
    logger,
    stats,
    rerun(evaluation) {
      if (stopping) {
        held.delete(evaluation.evaluationId);
        return;
      }
      stats.claimed++;
      ready.push({ evaluation, startedAt: iso(clock()) });
      pump();
    },
  });

  let waiting: QueuedEvaluation[] = [];
  let head = 0;
  const ready: Claimed[] = [];
  /** Durable evaluations waiting for a run slot for their next step (served before new evaluations). */
  const stepWaiters: Array<(granted: boolean) => void> = [];
  /** Ids anywhere in this runtime (waiting to being recorded), so a read of the queue never takes one twice. */
  const held = new Set<string>();
  /** Work in flight that idle() and shutdown() wait for: evaluator runs and outcome writes. */
  const inFlight = new Set<Promise<void>>();
  /** In overflow, the queue is read from after this seq; `highestSubmitted` is what it must reach. */
  let readThrough = 0;
  let highestSubmitted = 0;
  let reading: Promise<void> | undefined;
  /** After a failed read of the queue, the next waits this long (no busy loop on a broken ledger). */
  let readRetry: NodeJS.Timeout | undefined;
  let started = false;
  let stopping = false;
  let idleWaiters: Array<() => void> = [];

  const attempts = createGroupCommit<{ seq: number; startedAt: string }, boolean>(async (starts) => {
    const started = new Set(await store.startEvaluations(starts, leases.forStart()));
    return starts.map((start) => started.has(start.seq));
  }, MAX_WRITE_BATCH);
  const progressSaves = createGroupCommit<{ seq: number; progress: DurableProgress }, void>(async (updates) => {
    await store.saveEvaluationProgress(updates);
    return updates.map(() => undefined);
  }, MAX_WRITE_BATCH);
  const outcomes = createGroupCommit<EvaluationRecord, boolean>(async (records) => {
    const written = new Set(await store.recordEvaluations(records));
    return records.map((record) => written.has(record.evaluationId));
  }, MAX_WRITE_BATCH);

  const iso = (ms: number) => new Date(ms).toISOString();
  const waitingCount = () => waiting.length - head;
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => {
      inFlight.delete(work);
      pump();
    });
  };

  function hold(evaluation: QueuedEvaluation): void {
    held.add(evaluation.evaluationId);
    waiting.push(evaluation);
  }

  function submit(evaluations: readonly QueuedEvaluation[]): void {
    for (const evaluation of evaluations) {
      highestSubmitted = Math.max(highestSubmitted, evaluation.seq ?? 0);
      if (held.has(evaluation.evaluationId)) continue;
      if (stats.overflow || waitingCount() >= maxInMemory) {
        // From here on the queue is read back from the ledger, starting with this evaluation.
        if (!stats.overflow) readThrough = (evaluation.seq ?? 1) - 1;
        stats.overflow = true;
        continue;
      }
      hold(evaluation);
    }
    pump();
  }

  /** Reads queued evaluations back from the ledger while in overflow and memory has room. */
  function readQueue(): void {
    if (reading || readRetry || !stats.overflow || stopping || waitingCount() > maxInMemory / 2) return;
    const target = highestSubmitted;
    const limit = Math.min(maxInMemory - waitingCount(), QUEUE_READ_PAGE);
    reading = store
      .loadQueuedEvaluations({ afterSeq: readThrough, limit, claimableBy: leases.claimableNow() })
      .then((rows) => {
        for (const row of rows) {
          readThrough = Math.max(readThrough, row.seq ?? 0);
          if (held.has(row.evaluationId) || (options.accept && !options.accept(row))) continue;
          if (row.attempts >= maxAttempts) abandon(row);
          else hold(row);
        }
        if (rows.length < limit) {
          // Everything queued before the read began has been seen.
          readThrough = Math.max(readThrough, target);
          if (readThrough >= highestSubmitted) stats.overflow = false;
        }
      })
      .catch((error: unknown) => {
        logger.error(
          `evaluation: reading the evaluation queue failed: ${errorText(error)} (retrying in ${QUEUE_READ_RETRY_MS} ms)`,
        );
        readRetry = setTimeout(() => {
          readRetry = undefined;
          pump();
        }, QUEUE_READ_RETRY_MS);
        readRetry.unref();
      })
      .finally(() => {
        reading = undefined;
        pump();
      });
  }

  function pump(): void {
    if (!started) return;
    // Claim: count attempts ahead of free run slots (at most claimWindow() claimed at once).
    const window = claimWindow();
    while (!stopping && stats.claimed < window && waitingCount() > 0) {
      const evaluation = waiting[head++];
      if (head > 1024 && head * 2 > waiting.length) {
        waiting = waiting.slice(head);
        head = 0;
      }
      claim(evaluation);
    }
    // Run: a slot is held only while the evaluator (or a durable evaluator's step) runs; started
    // durable evaluations go first, so they finish before new ones take the slots.
    while (
      stats.running < concurrency &&
      (stepWaiters.length > 0 || ready.length > 0) &&
      !stopAll.signal.aborted &&
      governor.tryStart()
    ) {
      if (stepWaiters.length > 0) {
        stats.running++;
        stepWaiters.shift()!(true);
      } else run(ready.shift()!);
    }
    stats.waiting = waitingCount();
    readQueue();
    if (isIdle()) {
      void Promise.all([attempts.idle(), progressSaves.idle(), outcomes.idle()]).then(() => {
        if (!isIdle()) return;
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      });
    }
  }

  function isIdle(): boolean {
    return (
      waitingCount() === 0 &&
      stats.claimed === 0 &&
      stats.deferred === 0 &&
      inFlight.size === 0 &&
      !reading &&
      (!stats.overflow || stopping)
    );
  }

  function claim(evaluation: QueuedEvaluation): void {
    stats.claimed++;
    const startedAt = iso(clock());
    attempts.add({ seq: evaluation.seq ?? 0, startedAt }).then(
      (started) => {
        if (!started) {
          // Another replica holds it, or its outcome was recorded meanwhile: not this runtime's to run.
          stats.claimed--;
          stats.takenElsewhere++;
          held.delete(evaluation.evaluationId);
        } else {
          leases.held(evaluation.evaluationId, evaluation.seq ?? 0);
          ready.push({ evaluation, startedAt });
        }
        pump();
      },
      (error: unknown) => {
        stats.claimed--;
        held.delete(evaluation.evaluationId);
        logger.error(
          `evaluation ${evaluation.evaluationId}: counting its attempt failed: ${errorText(error)} (it runs at the next start)`,
        );
        pump();
      },
    );
  }

  function run({ evaluation, startedAt }: Claimed): void {
    stats.claimed--;
    stats.running++;
    stats.started++;
    const began = performance.now();
    const slot: StepSlot = {
      held: true,
      acquire: () =>
        new Promise<boolean>((resolve) => {
          if (stopAll.signal.aborted) resolve(false);
          else {
            stepWaiters.push(resolve);
            pump();
          }
        }),
      release: () => {
        stats.running--;
        pump();
      },
    };
    let durable = false;
    track(
      execute(evaluation, startedAt, slot, () => (durable = true)).then(
        (executed) => {
          if (slot.held) stats.running--;
          if (!durable) {
            // Durable evaluations wait between steps: their run time says nothing of the slots' pace.
            const took = performance.now() - began;
            averageRunMs = averageRunMs === undefined ? took : averageRunMs + RUN_TIME_WEIGHT * (took - averageRunMs);
          }
          // Stopped by shutdown: not an outcome. The evaluation stays queued and runs after the restart.
          if (!executed) held.delete(evaluation.evaluationId);
          else if (
            executed.record.outcome.type !== 'failed' ||
            stopping ||
            !outages.defer(evaluation, executed.error)
          ) {
            outages.forget(evaluation.evaluationId);
            if (executed.record.outcome.type === 'failed') logFailure(executed.record, executed.record.outcome.error);
            track(recordOutcome(executed.record));
          }
        },
        (error: unknown) => {
          if (slot.held) stats.running--;
          held.delete(evaluation.evaluationId);
          logger.error(`evaluation ${evaluation.evaluationId}: ${errorText(error)} (it runs again at the next start)`);
        },
      ),
    );
  }

  /** Reads the queue again from the start for evaluations no live replica holds. */
  function rescan(): void {
    if (stopping || stats.overflow) return;
    stats.overflow = true;
    readThrough = 0;
    pump();
  }

  function abandon(evaluation: QueuedEvaluation): void {
    const { controlId } = options.resolve(evaluation);
    const record = abandonedRecord(evaluation, iso(clock()), controlId);
    logger.warn(
      `evaluation ${evaluation.evaluationId} of interaction ${evaluation.interactionId}: ${record.outcome.type === 'failed' ? record.outcome.error : ''}`,
    );
    held.add(evaluation.evaluationId);
    track(recordOutcome(record));
  }

  async function recordOutcome(record: EvaluationRecord): Promise<void> {
    try {
      let written: boolean;
      try {
        written = await outcomes.add(record);
      } catch (error) {
        logger.error(
          `evaluation ${record.evaluationId}: recording its outcome failed: ${errorText(error)} (it runs again at the next start)`,
        );
        return;
      }
      if (!written) {
        stats.duplicates++;
        return;
      }
      stats.recorded++;
      const outcome = record.outcome;
      if (outcome.type === 'verdict') {
        stats.verdicts++;
        if (outcome.evaluation.passed) stats.passed++;
      } else if (outcome.type === 'inconclusive') stats.inconclusive++;
      else stats.failed++;
      try {
        options.onRecorded?.(record);
      } catch (error) {
        logger.error(`evaluation: onRecorded failed: ${errorText(error)}`);
      }
    } finally {
      held.delete(record.evaluationId);
      leases.done(record.evaluationId);
    }
  }

  let stopped: Promise<void> | undefined;
  return {
    stats,
    async start() {
      if (started) return;
      started = true;
      stats.overflow = true;
      readThrough = 0;
      readQueue();
      pump();
      leases.start(rescan);
    },
    submit,
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        pump();
      });
    },
    shutdown() {
      stopped ??= (async () => {
        stopping = true;
        clearTimeout(readRetry);
        await reading;
        // Claimed evaluations may still run during the grace period; then running ones are stopped.
        const graceEnds = Date.now() + (options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
        while ((stats.claimed > 0 || inFlight.size > 0) && Date.now() < graceEnds) {
          await Promise.race([...inFlight, new Promise((resolve) => setTimeout(resolve, 10))]);
        }
        stopAll.abort(new Error('the collector is shutting down'));
        // Claimed evaluations that did not run stay queued (their counted attempt did not run).
        for (const { evaluation } of ready.splice(0)) held.delete(evaluation.evaluationId);
        // Durable evaluations between steps stop there: they stay queued with their last saved progress.
        for (const resolve of stepWaiters.splice(0)) resolve(false);
        // Evaluations waiting out a model outage stay queued; they run after the restart.
        for (const evaluationId of outages.stop()) held.delete(evaluationId);
        stats.claimed = 0;
        while (inFlight.size > 0) await Promise.all(inFlight);
        await Promise.all([attempts.idle(), progressSaves.idle(), outcomes.idle()]);
        await leases.stop();
        governor.stop();
        for (const resolve of idleWaiters.splice(0)) resolve();
      })();
      return stopped;
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
