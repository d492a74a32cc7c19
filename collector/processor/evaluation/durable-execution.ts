/**
 * Running a durable evaluation in the collector: `runDurableEvaluation` (src/evaluation) with the
 * ledger as its memory. Progress is saved in the evaluation's queue row after every step (group
 * committed with other evaluations' saves), `config()` is resolved from the running configuration
 * before every step, and a run slot is held only while a step runs, so long multi-step judges do
 * not keep plain evaluators waiting between their steps.
 *
 * A queued evaluation loaded with `progress` resumes at `progress.step`; completed steps, and
 * `onEvaluation`, never run again. A step that was running when the process died runs again.
 *
 * A step that waits for a signal ends the attempt `parked`: the runtime stores the progress with
 * its deadline (evaluation-waits.ts) and lets go of the evaluation. Loaded again once due, it
 * resumes with what arrived: the signal delivered to it, or its deadline passed.
 */
import type { DurableEvaluator } from '../../../src/evaluation/durable-evaluator.ts';
import { runDurableEvaluation } from '../../../src/evaluation/durable-run.ts';
import type { EvaluationContext } from '../../../src/evaluation/evaluation-context.ts';
import { EvaluatorConfig } from '../../../src/evaluation/evaluator-config.ts';
import type { LedgerClient } from '../../../src/evaluation/ledger-client.ts';
import type { EvaluationTrigger } from '../../../src/evaluation/evaluation-context.ts';
import type { AttemptResult } from '../../../src/evaluation/run-evaluator.ts';
import type { SignalArrival } from '../../../src/evaluation/signal-wait.ts';
import type { DurableProgress, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { Clock } from './clock.ts';
import { subjectOf } from './evaluation-subject.ts';

/** The run slot a step holds: `acquire` resolves `false` when the runtime stops instead of granting one. */
export interface StepSlot {
  /** Whether the slot taken to start the evaluation is still held (its first step uses it). */
  held: boolean;
  acquire(): Promise<boolean>;
  release(): void;
}

export interface DurableExecution {
  evaluation: QueuedEvaluation;
  evaluator: DurableEvaluator<unknown>;
  /** The definition's `timeoutMs`. */
  timeoutMs: number;
  /** When this attempt started (ms): the evaluation's first start when it has no progress yet. */
  startedAtMs: number;
  ledger: LedgerClient;
  /** `config()` from the running configuration, resolved before every step. */
  resolveConfig(): Record<string, unknown>;
  saveProgress(progress: DurableProgress): Promise<void>;
  slot: StepSlot;
  /** The collector stopping: the running step is aborted, the evaluation stays queued. */
  signal: AbortSignal;
  /** Times the evaluation timeout (its steps' timeouts run on the system's timers). */
  clock: Clock;
}

/**
 * The outcome; `parked` with the progress to keep while it waits for a signal; or undefined when
 * the collector stopped it (it stays queued with its last saved progress).
 */
export async function executeDurable(
  execution: DurableExecution,
): Promise<AttemptResult | { parked: DurableProgress } | undefined> {
  const { evaluation, slot } = execution;
  const where = `evaluator ${evaluation.evaluatorId}`;
  const subject = subjectOf(evaluation);
  const arrival = arrivalOf(evaluation, execution.clock.now());
  const trigger = triggerOf(evaluation);
  const result = await runDurableEvaluation({
    evaluator: execution.evaluator,
    evaluatorId: evaluation.evaluatorId,
    ...(evaluation.progress ? { progress: evaluation.progress } : {}),
    startedAtMs: execution.startedAtMs,
    defaultTimeoutMs: execution.timeoutMs,
    contextFor(signal): EvaluationContext {
      const config = new EvaluatorConfig(execution.resolveConfig(), where);
      return {
        subject,
        evaluationId: evaluation.evaluationId,
        evaluatorId: evaluation.evaluatorId,
        config: () => config,
        ledger: execution.ledger,
        signal,
        trigger,
      };
    },
    save: (progress) => execution.saveProgress(progress),
    async holdSlot(run) {
      if (!slot.held) {
        // Not granted: the runtime is stopping, and the step sees the stop signal and does not run.
        if (!(await slot.acquire())) return run();
        slot.held = true;
      }
      try {
        return await run();
      } finally {
        slot.release();
        slot.held = false;
      }
    },
    signal: execution.signal,
    clock: () => execution.clock.now(),
    ...(arrival ? { arrival } : {}),
  });
  if (result.stopped) return undefined;
  if (result.parked) return { parked: result.parked };
  return {
    outcome: result.outcome,
    ...(result.evaluation ? { evaluation: result.evaluation } : {}),
    ...(result.error !== undefined ? { error: result.error } : {}),
  };
}

/** What a parked evaluation resumes with: the signal delivered to it, else its deadline once passed. */
export function arrivalOf(evaluation: QueuedEvaluation, nowMs: number): SignalArrival | undefined {
  const awaiting = evaluation.progress?.awaiting;
  if (!awaiting) return undefined;
  const delivered = evaluation.signal;
  if (delivered && delivered.signal === awaiting.signal) {
    return {
      signal: awaiting.signal,
      status: 'received',
      payload: delivered.payload,
      receivedAt: delivered.receivedAt,
    };
  }
  if (nowMs >= Date.parse(awaiting.deadline))
    return { signal: awaiting.signal, status: 'timed-out', deadline: awaiting.deadline };
  return undefined;
}

/** `context.trigger` of a queued evaluation. */
export function triggerOf(evaluation: QueuedEvaluation): EvaluationTrigger {
  return evaluation.cause?.kind === 'routed'
    ? { kind: 'routed', after: evaluation.cause.after, record: evaluation.cause.record }
    : { kind: 'binding' };
}
