/**
 * The evaluation runtime's types: its options (what the processor and backfill give it), its
 * counters and its interface (evaluation-runtime.ts builds it).
 */
import type { TracerProvider } from '@opentelemetry/api';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { ReviewOpener } from '../../evaluators/human-review-dependencies.ts';
import type { ConversationStore } from '../../ledger/conversation-store.ts';
import type { EvaluationQueue, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { EvaluationWaits } from '../../ledger/evaluation-waits.ts';
import type { InteractionStore } from '../../ledger/interaction-store.ts';
import type { RecordedEvaluations } from '../../ledger/recorded-evaluations.ts';
import type { Logger } from '../../logger.ts';
import type { SkippedEvaluation } from './budget-skips.ts';
import type { Clock } from './clock.ts';
import type { BudgetStats, EvaluationBudgets } from './evaluation-budgets.ts';
import type { LeaseOption } from './evaluation-leases.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import type { JudgeCircuitStats } from './judge-circuits.ts';
import type { LoadGovernor } from './load-governor.ts';
import type { OutcomeStats } from './outcome-recording.ts';
import type { QueueStats } from './run-queue.ts';
import type { RunSettings } from './run-settings.ts';
import type { SchedulerStats } from './run-scheduler.ts';
import type { CachingLedgerClient } from './store-ledger-client.ts';

export interface RuntimeStats extends QueueStats, SchedulerStats, OutcomeStats {
  /** Evaluations waiting to run again because their model was unavailable (an outage, not a verdict). */
  deferred: number;
  /** Leases lost to another replica while held here (this replica stalled longer than a lease). */
  leasesLost: number;
  /** Durable evaluations parked here to wait for a signal, and resumed after one (or their deadline). */
  parked: number;
  resumed: number;
  /** Evaluations not started because a token budget was spent (dropped from the queue, not recorded). */
  skipped: number;
  /** Each token budget: spent, limit, window, skipped (none without budgets). */
  budgets: BudgetStats[];
  /** The circuit breaker of each judge model endpoint used so far. */
  judgeCircuits: JudgeCircuitStats[];
}

export interface EvaluationRuntimeOptions {
  store: EvaluationQueue & EvaluationWaits & InteractionStore & RecordedEvaluations & ConversationStore;
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
  /** Where review evaluations open their reviews (given to evaluators' `create`); default none. */
  reviews?: ReviewOpener;
  /**
   * The evaluations an outcome routes (review entries with `after`), queued in the transaction
   * that records it (routing.ts). Default: none.
   */
  followUps?(record: EvaluationRecord, evaluation: QueuedEvaluation): QueuedEvaluation[];
  /** How often the ledger is read for waits that are due (default 1 s, on the clock). */
  duePollMs?: number;
}

export interface EvaluationRuntime {
  /** Reads the ledger's queue (evaluations left by a previous run) and starts running. */
  start(): Promise<void>;
  /** Runs evaluations that are already durable in the ledger's queue. */
  submit(evaluations: readonly QueuedEvaluation[]): void;
  /** Reads the waits that are due now: a signal was just delivered to one of them. */
  wake(): void;
  /** Resolves when nothing is waiting, running or being written. */
  idle(): Promise<void>;
  /** Stops claiming, gives claimed and running evaluations a grace period, then stops them. Safe twice. */
  shutdown(): Promise<void>;
  /** A snapshot of every part's counters. */
  readonly stats: RuntimeStats;
  /** Each judge model's circuit state (0 closed, 1 open, 2 half-open), for the gauge. */
  judgeCircuits(): Array<{ model: string; state: number }>;
}
