/**
 * The evaluation runtime: runs queued evaluations in the background, at most `concurrency`
 * evaluators at once, and records each outcome in the ledger exactly once.
 *
 * Every evaluation it runs is already durable in the ledger's queue (the processor queued it
 * before submitting). Each one goes through three stages: its attempt is counted in the ledger
 * (claimed), the evaluator runs (a new instance, under its timeout), and the outcome is recorded,
 * removing the evaluation from the queue in the same transaction. A collector that dies
 * mid-evaluation runs it again after the restart (an evaluator may run more than once), but the
 * ledger keeps at most one outcome per (interaction, evaluator, version). An evaluation whose
 * attempts all died with the collector (`maxAttempts`) is recorded as failed.
 *
 * This module wires the parts, each with one job and its own counters (`stats` gathers them):
 * the queue in memory with read-back from the ledger (run-queue.ts), claims and run slots
 * (run-scheduler.ts), one attempt (attempt-executor.ts, durable-execution.ts), model-outage waits
 * (model-outage.ts), leases (evaluation-leases.ts), outcome recording (outcome-recording.ts) and
 * shutdown (runtime-shutdown.ts). Every part reads the time and waits through one clock.
 */
import type { TracerProvider } from '@opentelemetry/api';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { DEFAULT_UNAVAILABLE_RETRY_FOR_MS } from './config.ts';
import { createJudgeCallSpans } from './judge-call-spans.ts';
import type { ConversationStore } from '../../ledger/conversation-store.ts';
import { createJudgeCircuits } from './judge-circuits.ts';
import type { JudgeCircuitStats } from './judge-circuits.ts';
import type { DurableProgress, EvaluationQueue, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { RecordedEvaluations } from '../../ledger/recorded-evaluations.ts';
import type { Logger } from '../../logger.ts';
import { createAttemptExecutor, type Executed } from './attempt-executor.ts';
import { clockFrom, type Clock } from './clock.ts';
import { createEvaluationLeases, type LeaseOption } from './evaluation-leases.ts';
import type { BudgetStats, EvaluationBudgets } from './evaluation-budgets.ts';
import { createBudgetSkips, type SkippedEvaluation } from './budget-skips.ts';
import { createRunQueue, type QueueStats } from './run-queue.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import { createGroupCommit, MAX_WRITE_BATCH } from './group-commit.ts';
import { UNLIMITED, type LoadGovernor } from './load-governor.ts';
import { createOutageDeferrals } from './model-outage.ts';
import { createOutcomeRecording, type OutcomeStats } from './outcome-recording.ts';
import { createRunScheduler, type SchedulerStats } from './run-scheduler.ts';
import { DEFAULT_SHUTDOWN_GRACE_MS, shutDownRuntime } from './runtime-shutdown.ts';
import { createStoreLedgerClient, type CachingLedgerClient } from './store-ledger-client.ts';
import type { RunSettings } from './run-settings.ts';

export { DEFAULT_SHUTDOWN_GRACE_MS };
export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_MAX_IN_MEMORY = 20_000;

export interface RuntimeStats extends QueueStats, SchedulerStats, OutcomeStats {
  /** Evaluations waiting to run again because their model was unavailable (an outage, not a verdict). */
  deferred: number;
  /** Leases lost to another replica while held here (this replica stalled longer than a lease). */
  leasesLost: number;
  /** Evaluations not started because a token budget was spent (dropped from the queue, not recorded). */
  skipped: number;
  /** Each token budget: spent, limit, window, skipped (none without budgets). */
  budgets: BudgetStats[];
  /** The circuit breaker of each judge model endpoint used so far. */
  judgeCircuits: JudgeCircuitStats[];
}

export interface EvaluationRuntimeOptions {
  store: EvaluationQueue & InteractionStore & RecordedEvaluations & ConversationStore;
  registry: EvaluatorRegistry;
  /**
   * `config()`, `control-id`, shadow and provenance for an evaluation, resolved from the running
   * configuration (run-settings.ts). Called again before every step of a durable evaluation, so
   * later steps see a changed configuration.
   */
  resolve(evaluation: QueuedEvaluation): RunSettings;
  concurrency: number;
  maxAttempts?: number;
  /**
   * Queued evaluations held in memory at most; beyond, they are read back from the ledger as the
   * runtime catches up.
   */
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
  /** Time and timers (default: the system clock); a function is the time of day, with real timers. */
  clock?: Clock | (() => number);
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
  /**
   * Token budgets (evaluation-budgets.ts): an evaluation whose budget is spent is dropped from the
   * queue instead of started. Default: none (a backfill runs without).
   */
  budgets?: EvaluationBudgets;
  /** Called with each evaluation dropped because its budget was spent (the skipped-evaluations metric). */
  onSkipped?(skip: SkippedEvaluation): void;
  /**
   * Where LLM judges' model calls become `chat <model>` spans, children of their evaluation's
   * `evaluate` span (default: none, the calls are not traced). This runtime's own: two runtimes
   * in one process never mix their judges' calls.
   */
  tracerProvider?: TracerProvider;
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
  /** A snapshot of every part's counters. */
  readonly stats: RuntimeStats;
  /** Each judge model's circuit state (0 closed, 1 open, 2 half-open), for the gauge. */
  judgeCircuits(): Array<{ model: string; state: number }>;
}

export function createEvaluationRuntime(options: EvaluationRuntimeOptions): EvaluationRuntime {
  const { store, registry, logger } = options;
  const clock = clockFrom(options.clock);
  const ledger = options.ledger ?? createStoreLedgerClient(store);
  const governor = options.governor ?? UNLIMITED;
  const stopAll = new AbortController();
  let started = false;
  let stopping = false;
  /** Runs and outcome writes in flight, which idle() and shutdown() wait for. */
  const inFlight = new Set<Promise<unknown>>();
  /** Waiting for a condition on the runtime's state, checked after every change. */
  const watchers = new Set<{ test(): boolean; resolve(): void }>();
  let idleWaiters: Array<() => void> = [];

  const leases = createEvaluationLeases({ store, ...(options.lease ? { lease: options.lease } : {}), clock, logger });
  const queue = createRunQueue({
    store,
    maxInMemory: options.maxInMemory ?? DEFAULT_MAX_IN_MEMORY,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    ...(options.accept ? { accept: options.accept } : {}),
    claimableNow: () => leases.claimableNow(),
    clock,
    logger,
    onAbandoned: (evaluation) =>
      track(
        outcomes.recordAbandoned(evaluation, {
          settings: options.resolve(evaluation),
          definition: registry.get(evaluation.evaluatorId),
        }),
      ),
    onChange: () => pump(),
  });
  const outcomes = createOutcomeRecording({
    store,
    clock,
    logger,
    ...(options.onRecorded ? { onRecorded: options.onRecorded } : {}),
    onSettled(evaluationId) {
      queue.release(evaluationId);
      leases.done(evaluationId);
    },
  });
  const attempts = createGroupCommit<{ seq: number; startedAt: string }, boolean>(async (starts) => {
    const counted = new Set(await store.startEvaluations(starts, leases.forStart()));
    return starts.map((start) => counted.has(start.seq));
  }, MAX_WRITE_BATCH);
  const progressSaves = createGroupCommit<{ seq: number; progress: DurableProgress }, void>(async (updates) => {
    await store.saveEvaluationProgress(updates);
    return updates.map(() => undefined);
  }, MAX_WRITE_BATCH);
  // One registry of judge circuit breakers per runtime, on its clock: two collectors never share one.
  const circuits = createJudgeCircuits({ clock, logger });
  const execute = createAttemptExecutor({
    circuitBreakers: circuits.breakers,
    registry,
    ledger,
    resolve: options.resolve,
    saveProgress: (update) => progressSaves.add(update),
    signal: stopAll.signal,
    clock,
    ...(options.tracerProvider ? { judgeCalls: createJudgeCallSpans(options.tracerProvider, () => clock.now()) } : {}),
  });
  const outages = createOutageDeferrals({
    retryForMs: options.unavailableRetryForMs ?? DEFAULT_UNAVAILABLE_RETRY_FOR_MS,
    ...(options.unavailableBackoff ? { backoff: options.unavailableBackoff } : {}),
    clock,
    logger,
    rerun: (evaluation) => scheduler.rerun(evaluation),
  });
  const skips = options.budgets
    ? createBudgetSkips({
        store,
        budgets: options.budgets,
        clock,
        ...(options.lease ? { owner: options.lease.owner } : {}),
        ...(options.onSkipped ? { onSkipped: options.onSkipped } : {}),
        release: (evaluationId) => queue.release(evaluationId),
        track: (work) => track(work),
      })
    : undefined;
  const scheduler = createRunScheduler({
    concurrency: options.concurrency,
    governor,
    ...(skips ? { admit: (evaluation: QueuedEvaluation) => skips.admit(evaluation) } : {}),
    clock,
    logger,
    queue,
    async countAttempt(evaluation, startedAt) {
      const counted = await attempts.add({ seq: evaluation.seq ?? 0, startedAt });
      if (counted) leases.held(evaluation.evaluationId, evaluation.seq ?? 0);
      return counted;
    },
    run({ evaluation, startedAt }, slot) {
      let stepwise = false;
      const ran = execute(evaluation, startedAt, slot, () => (stepwise = true)).then(
        (executed) => settle(evaluation, executed),
        (error: unknown) => {
          queue.release(evaluation.evaluationId);
          logger.error(
            `evaluation ${evaluation.evaluationId}: ${error instanceof Error ? error.message : String(error)} (it ` +
              'runs again at the next start)',
          );
        },
      );
      track(ran);
      return ran.then(() => ({ stepwise }));
    },
    signal: stopAll.signal,
    onChange: () => pump(),
  });
  governor.onWindow(() => pump());

  function track(work: Promise<unknown>): void {
    inFlight.add(work);
    void work.finally(() => {
      inFlight.delete(work);
      pump();
    });
  }

  /** An attempt is over: its outcome is recorded, or it waits out a model outage, or (stopped) it stays queued. */
  function settle(evaluation: QueuedEvaluation, executed: Executed | undefined): void {
    if (!executed) {
      queue.release(evaluation.evaluationId);
      return;
    }
    if (executed.record.outcome.type === 'failed' && !stopping && outages.defer(evaluation, executed.error)) return;
    outages.forget(evaluation.evaluationId);
    options.budgets?.spend(executed.record);
    track(outcomes.recordAttempt(executed.record));
  }

  function pump(): void {
    if (!started) return;
    scheduler.pump();
    queue.refill();
    for (const watcher of watchers) {
      if (!watcher.test()) continue;
      watchers.delete(watcher);
      watcher.resolve();
    }
    if (isIdle()) {
      void writesDone().then(() => {
        if (!isIdle()) return;
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      });
    }
  }

  function isIdle(): boolean {
    return (
      queue.size() === 0 &&
      scheduler.stats().claimed === 0 &&
      outages.waiting() === 0 &&
      inFlight.size === 0 &&
      queue.caughtUp()
    );
  }

  function when(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => watchers.add({ test, resolve }));
  }

  async function writesDone(): Promise<void> {
    await Promise.all([attempts.idle(), progressSaves.idle(), outcomes.idle(), skips?.idle()]);
  }

  let stopped: Promise<void> | undefined;
  return {
    get stats(): RuntimeStats {
      return {
        ...queue.stats(),
        ...scheduler.stats(),
        ...outcomes.stats(),
        deferred: outages.waiting(),
        ...leases.stats(),
        skipped: skips?.count() ?? 0,
        budgets: options.budgets?.stats() ?? [],
        judgeCircuits: circuits.stats(),
      };
    },
    judgeCircuits: () => circuits.gauge(),
    async start() {
      if (started) return;
      // A restart must not hand a spent budget its tokens back: the windows are rebuilt first.
      if (skips) await skips.restore();
      started = true;
      queue.readFromStart();
      pump();
      leases.start(() => queue.rescan());
    },
    submit(evaluations) {
      queue.submit(evaluations);
      pump();
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        pump();
      });
    },
    shutdown() {
      stopped ??= (async () => {
        stopping = true;
        await shutDownRuntime({
          clock,
          graceMs: options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
          queue,
          scheduler,
          outages,
          leases,
          governor,
          stopAll,
          quiet: () => when(() => scheduler.stats().claimed === 0 && inFlight.size === 0),
          async drain() {
            while (inFlight.size > 0) await Promise.all(inFlight);
          },
          writes: writesDone,
        });
        for (const watcher of watchers) watcher.resolve();
        watchers.clear();
        for (const resolve of idleWaiters.splice(0)) resolve();
      })();
      return stopped;
    },
  };
}
