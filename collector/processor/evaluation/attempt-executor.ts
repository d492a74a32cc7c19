/**
 * One attempt of one queued evaluation, as the runtime runs it: a new evaluator from its
 * definition; a plain evaluator through `runEvaluator` (one call under its timeout), a durable one
 * step by step (durable-execution.ts, progress saved in the ledger, a run slot per step); the
 * result turned into the record the ledger keeps. Resolves with nothing when the collector stopped
 * the attempt (the evaluation stays queued and runs after the restart).
 */
import { isDurableEvaluator } from '../../../src/evaluation/durable-evaluator.ts';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { Evaluator } from '../../../src/evaluation/evaluator.ts';
import { failedOutcome, runEvaluator, type AttemptResult } from '../../../src/evaluation/run-evaluator.ts';
import type { CircuitBreakers } from '../../../src/judge/circuit-breaker.ts';
import type { HumanReviewDependencies, ReviewOpener } from '../../evaluators/human-review-dependencies.ts';
import type { JudgeCallRecorder, JudgeDependencies } from '../../evaluators/judge-calls.ts';
import type { DurableProgress, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import { isoTime, type Clock } from './clock.ts';
import { executeDurable, triggerOf, type StepSlot } from './durable-execution.ts';
import { attemptRecord } from './evaluation-outcomes.ts';
import { subjectOf, unsupportedSubject } from './evaluation-subject.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import type { RunSettings } from './run-settings.ts';
import type { CachingLedgerClient } from './store-ledger-client.ts';

export type Executed =
  | {
      record: EvaluationRecord;
      /** What made a failed outcome fail. */
      error?: unknown;
      parked?: undefined;
    }
  /** A durable evaluation waiting for a signal: the progress to park it with. */
  | { parked: DurableProgress; record?: undefined };

export type AttemptExecutor = (
  evaluation: QueuedEvaluation,
  startedAt: string,
  slot: StepSlot,
  markDurable: () => void,
) => Promise<Executed | undefined>;

export function createAttemptExecutor(options: {
  registry: EvaluatorRegistry;
  ledger: CachingLedgerClient;
  /**
   * `config()`, `control-id`, shadow and provenance from the running configuration (again before
   * every durable step).
   */
  resolve(evaluation: QueuedEvaluation): RunSettings;
  saveProgress(update: { seq: number; progress: DurableProgress }): Promise<void>;
  /** The collector stopping. */
  signal: AbortSignal;
  clock: Clock;
  /** Where LLM judges report their model calls (given to every evaluator's `create`). */
  judgeCalls?: JudgeCallRecorder;
  /** The runtime's circuit breakers in front of the judge models (given to every evaluator's `create`). */
  circuitBreakers?: CircuitBreakers;
  /** Where review evaluations open their reviews (given to every evaluator's `create`). */
  reviews?: ReviewOpener;
}): AttemptExecutor {
  const { registry, ledger, resolve, saveProgress, signal, clock } = options;
  const dependencies: JudgeDependencies & HumanReviewDependencies = {
    ledger,
    ...(options.judgeCalls ? { judgeCalls: options.judgeCalls } : {}),
    ...(options.circuitBreakers ? { circuitBreakers: options.circuitBreakers } : {}),
    ...(options.reviews ? { reviews: options.reviews, now: () => options.clock.now() } : {}),
  };
  return async function execute(evaluation, startedAt, slot, markDurable) {
    const settings = resolve(evaluation);
    const { config } = settings;
    const definition = registry.get(evaluation.evaluatorId);
    let result: AttemptResult;
    let evaluator: Evaluator | undefined;
    let createError: unknown = definition && unsupportedSubject(definition, evaluation);
    try {
      if (createError === undefined) evaluator = definition?.create(dependencies);
    } catch (error) {
      createError = error;
    }
    if (definition && isDurableEvaluator(evaluator)) {
      markDurable();
      const outcome = await executeDurable({
        evaluation,
        evaluator,
        timeoutMs: definition.timeoutMs,
        startedAtMs: Date.parse(startedAt),
        ledger,
        resolveConfig: () => resolve(evaluation).config,
        saveProgress: async (progress) => {
          await saveProgress({ seq: evaluation.seq ?? 0, progress });
          // A run again in this process (after a model outage) resumes here, as a restart would.
          evaluation.progress = progress;
        },
        slot,
        signal: signal,
        clock,
      });
      if (!outcome) return undefined;
      if ('parked' in outcome) return { parked: outcome.parked };
      // The control id, shadow and provenance as configured when the evaluation finished.
      const record = attemptRecord(
        evaluation,
        outcome,
        { startedAt, completedAt: isoTime(clock.now()) },
        { settings: resolve(evaluation), definition },
      );
      return { record, error: outcome.error };
    }
    if (createError !== undefined) {
      result = { outcome: failedOutcome(createError), error: createError };
    } else if (!definition) {
      result = {
        outcome: {
          type: 'failed',
          error:
            `evaluator ${evaluation.evaluatorId}: no evaluator with this id is registered in this collector (it ` +
            'was queued by an earlier configuration)',
          errorType: 'EvaluatorNotFoundError',
        },
      };
    } else {
      result = await runEvaluator({
        evaluatorId: evaluation.evaluatorId,
        makeEvaluator: () => evaluator!,
        subject: subjectOf(evaluation),
        evaluationId: evaluation.evaluationId,
        config,
        ledger,
        timeoutMs: definition.timeoutMs,
        signal: signal,
        trigger: triggerOf(evaluation),
      });
    }
    if (signal.aborted && result.outcome.type === 'failed') return undefined;
    return {
      record: attemptRecord(
        evaluation,
        result,
        { startedAt, completedAt: isoTime(clock.now()) },
        { settings, definition },
      ),
      error: result.error,
    };
  };
}
