/**
 * A durable evaluation run in one go, in memory, nothing saved: how `runEvaluator` (and so
 * `EvaluatorTestKit`) and `DurableEvaluator.evaluate` run one. Same steps, effects, settings,
 * retries and timeouts as in the collector; only the persistence is missing. Given saved progress,
 * it resumes there as the collector does after a restart. A signal wait ends at once: with the
 * payload `signals` holds for that signal (received), else as timed out, since no one can send one.
 */
import type { DurableProgress, SignalWaitProgress } from '../model/records.ts';
import { runDurableEvaluation } from './durable-run.ts';
import type { DurableInstance } from './durable-steps.ts';
import type { Evaluation } from './evaluation.ts';
import type { EvaluationContext } from './evaluation-context.ts';
import type { EvaluationOutcome } from '../model/records.ts';
import { DEFAULT_EVALUATION_TIMEOUT_MS } from './evaluator.ts';
import type { SignalArrival } from './signal-wait.ts';

export interface InMemoryDurableRun {
  evaluator: DurableInstance;
  evaluatorId: string;
  /** Where to resume (progress a collector saved); absent: start with `onEvaluation`. */
  progress?: DurableProgress;
  /** The base context: each step gets it with its own signal. */
  context: Omit<EvaluationContext, 'signal'> & { signal?: AbortSignal };
  /** Default evaluation and step timeout (the definition's `timeoutMs`). */
  timeoutMs?: number;
  /** The payload each awaited signal receives, by signal name; a signal not here times out at once. */
  signals?: Readonly<Record<string, unknown>>;
}

export async function runDurableInMemory(
  run: InMemoryDurableRun,
): Promise<{ outcome: EvaluationOutcome; evaluation?: Evaluation; error?: unknown }> {
  const { context } = run;
  const arrivalFor = (wait: SignalWaitProgress): SignalArrival =>
    run.signals && Object.hasOwn(run.signals, wait.signal)
      ? {
          signal: wait.signal,
          status: 'received',
          payload: structuredClone(run.signals[wait.signal]),
          receivedAt: new Date().toISOString(),
        }
      : { signal: wait.signal, status: 'timed-out', deadline: wait.deadline };
  const result = await runDurableEvaluation({
    evaluator: run.evaluator,
    evaluatorId: run.evaluatorId,
    ...(run.progress ? { progress: run.progress } : {}),
    startedAtMs: Date.now(),
    defaultTimeoutMs: run.timeoutMs ?? DEFAULT_EVALUATION_TIMEOUT_MS,
    contextFor: (signal) => ({ ...context, signal }),
    save: async () => {},
    ...(context.signal ? { signal: context.signal } : {}),
    // Saved progress parked on a signal resumes as any wait does here.
    ...(run.progress?.awaiting ? { arrival: arrivalFor(run.progress.awaiting) } : {}),
    awaitSignal: async (wait) => arrivalFor(wait),
  });
  if (result.stopped || result.parked) {
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
