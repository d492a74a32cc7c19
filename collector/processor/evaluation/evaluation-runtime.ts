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
 * (model-outage.ts), leases (evaluation-leases.ts), outcome recording (outcome-recording.ts), waits
 * for signals (due-waits.ts) and shutdown (runtime-shutdown.ts). Every part reads the time and
 * waits through one clock. Its options, counters and interface: evaluation-runtime-types.ts.
 */
import { DEFAULT_UNAVAILABLE_RETRY_FOR_MS } from './config.ts';
import { createJudgeCallSpans } from './judge-call-spans.ts';
import { createJudgeCircuits } from './judge-circuits.ts';
import type { DurableProgress, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import { createDueWaits } from './due-waits.ts';
import { createAttemptExecutor, type Executed } from './attempt-executor.ts';
import { clockFrom } from './clock.ts';
import { createEvaluationLeases } from './evaluation-leases.ts';
import { createBudgetSkips } from './budget-skips.ts';
import { createRunQueue } from './run-queue.ts';
import { createGroupCommit, MAX_WRITE_BATCH } from './group-commit.ts';
import { UNLIMITED } from './load-governor.ts';
import { createOutageDeferrals } from './model-outage.ts';
import { createOutcomeRecording } from './outcome-recording.ts';
import { createRunScheduler } from './run-scheduler.ts';
import { DEFAULT_SHUTDOWN_GRACE_MS, shutDownRuntime } from './runtime-shutdown.ts';
import { createStoreLedgerClient } from './store-ledger-client.ts';
import type { EvaluationRuntime, EvaluationRuntimeOptions, RuntimeStats } from './evaluation-runtime-types.ts';

export type { EvaluationRuntime, EvaluationRuntimeOptions, RuntimeStats } from './evaluation-runtime-types.ts';

export { DEFAULT_SHUTDOWN_GRACE_MS };
export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_MAX_IN_MEMORY = 20_000;

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
    signal: stopAll.signal,
    ...(options.onRecorded ? { onRecorded: options.onRecorded } : {}),
    ...(options.followUps ? { followUps: options.followUps } : {}),
    onQueued(queued) {
      queue.submit(queued);
      pump();
    },
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
    ...(options.reviews ? { reviews: options.reviews } : {}),
  });
  const waits = createDueWaits({
    store,
    clock,
    logger,
    claimableNow: () => leases.claimableNow(),
    resume(due) {
      queue.submitFirst(due);
      pump();
    },
    ...(options.duePollMs !== undefined ? { pollMs: options.duePollMs } : {}),
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
    if (executed.parked) {
      // It leaves the runtime once the ledger holds it parked, not before: until then a read of the
      // queue would find it runnable and start it again.
      const parked = waits.park(evaluation, executed.parked).then(
        () => leases.done(evaluation.evaluationId),
        (error: unknown) =>
          logger.error(
            `evaluation ${evaluation.evaluationId}: parking it to wait for a signal failed: ` +
              `${error instanceof Error ? error.message : String(error)} (it resumes from its last saved step at the ` +
              'next start)',
          ),
      );
      track(parked.finally(() => queue.release(evaluation.evaluationId)));
      return;
    }
    if (executed.record.outcome.type === 'failed' && !stopping && outages.defer(evaluation, executed.error)) return;
    outages.forget(evaluation.evaluationId);
    options.budgets?.spend(executed.record);
    track(outcomes.recordAttempt(executed.record, evaluation));
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
    await Promise.all([attempts.idle(), progressSaves.idle(), outcomes.idle(), waits.idle(), skips?.idle()]);
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
        ...waits.stats(),
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
      waits.start();
    },
    submit(evaluations) {
      queue.submit(evaluations);
      pump();
    },
    wake() {
      if (started && !stopping) waits.wake();
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
        await waits.stop();
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
