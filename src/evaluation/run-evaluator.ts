/**
 * Runs one evaluation attempt exactly as the collector does: a new evaluator, one `evaluate` call
 * under a timeout, and the result mapped to one of the three outcomes. A `DurableEvaluator` runs
 * all its steps here, in memory (the collector's runtime runs those itself, saving progress). The
 * collector's runtime and `EvaluatorTestKit` both call this, so a unit test sees what production
 * records.
 * Internal to Evalon (not exported from `evalon/evaluation`).
 */
import { isDurableEvaluator } from './durable-evaluator.ts';
import { runDurableInMemory } from './durable-in-memory.ts';
import { isEffect } from './effect.ts';
import type { Evaluation } from './evaluation.ts';
import type { EvaluationContext, EvaluationTrigger, Subject } from './evaluation-context.ts';
import type { DurableProgress, EvaluationOutcome } from '../model/records.ts';
import type { Evaluator } from './evaluator.ts';
import { EvaluatorConfig } from './evaluator-config.ts';
import { EvaluatorFailedError, failureAttributes } from './errors.ts';
import type { LedgerClient } from './ledger-client.ts';

export interface EvaluationAttempt {
  evaluatorId: string;
  /** Makes the evaluator for this attempt (a definition's `create`, or a test's factory). */
  makeEvaluator(): Evaluator;
  subject: Subject;
  evaluationId: string;
  /** What `config()` returns. */
  config: Record<string, unknown>;
  ledger: LedgerClient;
  timeoutMs: number;
  /** Aborts the attempt from outside (the collector stopping). */
  signal?: AbortSignal;
  /** For a durable evaluator: resume from this saved progress instead of starting with `onEvaluation`. */
  progress?: DurableProgress;
  /** For a durable evaluator: the payload each awaited signal receives at once (others time out). */
  signals?: Readonly<Record<string, unknown>>;
  /** Why it runs (`context.trigger`). */
  trigger?: EvaluationTrigger;
}

export interface AttemptResult {
  outcome: EvaluationOutcome;
  /** The verdict, for a verdict outcome. */
  evaluation?: Evaluation;
  /** What was thrown (or the error explaining the failure), for a failed outcome. */
  error?: unknown;
}

export async function runEvaluator(attempt: EvaluationAttempt): Promise<AttemptResult> {
  const where = `evaluator ${attempt.evaluatorId}`;
  let evaluator: Evaluator;
  try {
    evaluator = attempt.makeEvaluator();
  } catch (error) {
    return { outcome: failedOutcome(error), error };
  }
  if (isDurableEvaluator(evaluator)) {
    // Its own settings time it (evaluation and step timeouts): no outer timer.
    const config = new EvaluatorConfig(attempt.config, where);
    return runDurableInMemory({
      evaluator,
      evaluatorId: attempt.evaluatorId,
      timeoutMs: attempt.timeoutMs,
      ...(attempt.progress ? { progress: attempt.progress } : {}),
      ...(attempt.signals ? { signals: attempt.signals } : {}),
      context: {
        subject: frozenSubject(attempt.subject),
        evaluationId: attempt.evaluationId,
        evaluatorId: attempt.evaluatorId,
        config: () => config,
        ledger: attempt.ledger,
        ...(attempt.signal ? { signal: attempt.signal } : {}),
        ...(attempt.trigger ? { trigger: attempt.trigger } : {}),
      },
    });
  }
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new EvaluatorFailedError(
        `${where}: the evaluation did not finish within ${attempt.timeoutMs} ms (timed out)`,
      );
      error.name = 'TimeoutError';
      controller.abort(error);
      reject(error);
    }, attempt.timeoutMs);
    onStop = () => {
      const error = new EvaluatorFailedError(`${where}: the evaluation was stopped (the collector is shutting down)`, {
        cause: attempt.signal?.reason,
      });
      controller.abort(error);
      reject(error);
    };
    if (attempt.signal?.aborted) onStop();
    else attempt.signal?.addEventListener('abort', onStop, { once: true });
  });
  stopped.catch(() => {});
  const config = new EvaluatorConfig(attempt.config, where);
  const context: EvaluationContext = {
    subject: frozenSubject(attempt.subject),
    evaluationId: attempt.evaluationId,
    evaluatorId: attempt.evaluatorId,
    config: () => config,
    ledger: attempt.ledger,
    signal: controller.signal,
    ...(attempt.trigger ? { trigger: attempt.trigger } : {}),
  };
  try {
    const effect = await Promise.race([
      (async () => {
        if (typeof evaluator?.evaluate !== 'function') {
          throw new EvaluatorFailedError(
            `${where}: create returned ${describe(evaluator)}, not an evaluator (an object with an evaluate method)`,
          );
        }
        return evaluator.evaluate(context);
      })(),
      stopped,
    ]);
    if (!isEffect(effect)) {
      throw new EvaluatorFailedError(
        `${where}: evaluate returned ${describe(effect)} (return effects.complete(evaluation) or ` +
          'effects.inconclusive(reason))',
        { cause: effect },
      );
    }
    if (effect.kind === 'complete')
      return { outcome: { type: 'verdict', evaluation: effect.evaluation.toJSON() }, evaluation: effect.evaluation };
    return { outcome: { type: 'inconclusive', reason: effect.reason } };
  } catch (error) {
    return { outcome: failedOutcome(error), error };
  } finally {
    clearTimeout(timer);
    // One shared signal serves every evaluation: leaving listeners on it would pile them up.
    if (onStop) attempt.signal?.removeEventListener('abort', onStop);
  }
}

/** A copy of the subject that one evaluator cannot change for the next (its id list included). */
export function frozenSubject(subject: Subject): Subject {
  return subject.kind === 'conversation'
    ? Object.freeze({ ...subject, interactionIds: Object.freeze([...subject.interactionIds]) })
    : Object.freeze({ ...subject });
}

export function failedOutcome(error: unknown): EvaluationOutcome {
  if (error instanceof Error) {
    const attributes = failureAttributes(error);
    return {
      type: 'failed',
      error: error.message || error.name,
      errorType: error.name,
      ...(attributes ? { attributes } : {}),
    };
  }
  return { type: 'failed', error: `threw a non-error value: ${describe(error)}`, errorType: typeof error };
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value);
  if (typeof value === 'object')
    return value.constructor?.name && value.constructor !== Object
      ? `an instance of ${value.constructor.name}`
      : 'an object';
  return `${typeof value} ${String(value)}`;
}
