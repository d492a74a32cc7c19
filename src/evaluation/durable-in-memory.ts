/**
 * A durable evaluation run in one go, in memory, nothing saved: how `runEvaluator` (and so
 * `EvaluatorTestKit`) and `DurableEvaluator.evaluate` run one. Same steps, effects, settings,
 * retries and timeouts as in the collector; only the persistence is missing. Given saved progress,
 * it resumes there as the collector does after a restart.
 */
import type { DurableProgress } from '../model/records.ts';
import { runDurableEvaluation } from './durable-run.ts';
import type { DurableInstance } from './durable-steps.ts';
import type { Evaluation } from './evaluation.ts';
import type { EvaluationContext } from './evaluation-context.ts';
import type { EvaluationOutcome } from '../model/records.ts';
import { DEFAULT_EVALUATION_TIMEOUT_MS } from './evaluator.ts';

export interface InMemoryDurableRun {
  evaluator: DurableInstance;
  evaluatorId: string;
  /** Where to resume (progress a collector saved); absent: start with `onEvaluation`. */
  progress?: DurableProgress;
  /** The base context: each step gets it with its own signal. */
  context: Omit<EvaluationContext, 'signal'> & { signal?: AbortSignal };
  /** Default evaluation and step timeout (the definition's `timeoutMs`). */
  timeoutMs?: number;
}

export async function runDurableInMemory(
  run: InMemoryDurableRun,
): Promise<{ outcome: EvaluationOutcome; evaluation?: Evaluation; error?: unknown }> {
  const { context } = run;
  const result = await runDurableEvaluation({
    evaluator: run.evaluator,
    evaluatorId: run.evaluatorId,
    ...(run.progress ? { progress: run.progress } : {}),
    startedAtMs: Date.now(),
    defaultTimeoutMs: run.timeoutMs ?? DEFAULT_EVALUATION_TIMEOUT_MS,
    contextFor: (signal) => ({ ...context, signal }),
    save: async () => {},
    ...(context.signal ? { signal: context.signal } : {}),
  });
  if (result.stopped) {
    return {
      outcome: {
        type: 'failed',
        error: `evaluator ${run.evaluatorId}: the evaluation was stopped (the collector is shutting down)`,
        errorType: 'EvaluatorFailedError',
      },
    };
  }
  return {
    outcome: result.outcome,
    ...(result.evaluation ? { evaluation: result.evaluation } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
  };
}
