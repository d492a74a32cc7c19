/**
 * Durable steps under explicit ids, and retry policies as data: progress names the declared id (so
 * a method can be renamed while evaluations are in flight), `transitionTo` takes the id or the
 * declared method, a policy's backoff, cap and non-retryable errors apply, a step overrides the
 * evaluator's policy and timeout, and every bad declaration fails before any step runs, naming
 * the field. Run in memory through the same step runner the collector uses.
 */
import { describe, expect, it } from 'vitest';
import {
  defineEvaluator,
  DurableEvaluator,
  DurableSettings,
  Evaluation,
  EvaluatorDefinitionError,
  Subject,
  type DurableProgress,
  type RetryPolicy,
  type StepDeclarations,
} from '../../../src/evaluation/index.ts';
import { runDurableEvaluation } from '../../../src/evaluation/durable-run.ts';
import type { EvaluationContext } from '../../../src/evaluation/evaluation-context.ts';
import { EvaluatorConfig } from '../../../src/evaluation/evaluator-config.ts';
import { resolveRetryPolicy, retryDelayMs } from '../../../src/evaluation/retry-policy.ts';
import { EvaluatorTestKit, TestLedgerClient, testInteractionRecord } from '../../../src/testing/index.ts';

const record = testInteractionRecord();
const subject = Subject.interaction(record.interactionId, record.agentId);
const evaluate = (evaluator: () => DurableEvaluator<unknown>, progress?: DurableProgress) => {
  const kit = EvaluatorTestKit.of(defineEvaluator({ id: 'stepper', create: evaluator }));
  return (progress ? kit.withProgress(progress) : kit).evaluate(subject);
};

/** Runs `evaluator` to its end, collecting every progress the collector would save. */
async function runSaving(evaluator: DurableEvaluator<unknown>, progress?: DurableProgress) {
  const saved: DurableProgress[] = [];
  const context = (signal: AbortSignal): EvaluationContext => ({
    subject,
    evaluationId: 'e-1',
    evaluatorId: 'stepper',
    config: () => new EvaluatorConfig({}, 'evaluator stepper'),
    ledger: TestLedgerClient.create(),
    signal,
  });
  const result = await runDurableEvaluation({
    evaluator,
    evaluatorId: 'stepper',
    ...(progress ? { progress } : {}),
    startedAtMs: Date.now(),
    defaultTimeoutMs: 60_000,
    contextFor: context,
    save: async (next) => {
      saved.push(next);
    },
  });
  return { result, saved };
}

/** Two steps whose ids differ from their methods' names. */
class Review extends DurableEvaluator<{ notes: string[] }> {
  override steps() {
    return { 'read-reply': this.readReply, 'score-reply': this.scoreReply };
  }
  onEvaluation() {
    return this.effects()
      .updateState({ notes: ['start'] })
      .transitionTo(this.readReply)
      .withInput(2);
  }
  readReply(times: number) {
    const notes = [...this.currentState().notes, `read ${times}x`];
    return this.effects().updateState({ notes }).transitionTo('score-reply');
  }
  scoreReply() {
    return this.effects().complete(Evaluation.passed(this.currentState().notes.join(', ')));
  }
}

describe('durable steps under explicit ids', () => {
  it('saves the declared id of the next step, whether transitionTo named the method or the id', async () => {
    const { result, saved } = await runSaving(new Review());
    expect(result).toMatchObject({ stopped: false, outcome: { type: 'verdict' }, completedSteps: 3 });
    expect(saved.map((progress) => progress.step)).toEqual(['read-reply', 'score-reply']);
    expect(saved[0]).toMatchObject({ input: 2, state: { notes: ['start'] }, completedSteps: 1 });
  });

  it('resumes under the id after its method was renamed: an evaluation in flight is not orphaned', async () => {
    const { saved } = await runSaving(
      new (class extends Review {
        override scoreReply(): never {
          throw new Error('stopped here');
        }
      })(),
    );
    const inFlight = saved.at(-1)!;
    expect(inFlight.step).toBe('score-reply');
    class RenamedReview extends DurableEvaluator<{ notes: string[] }> {
      override steps() {
        return { 'score-reply': this.rateReply };
      }
      onEvaluation(): never {
        throw new Error('not run on resume');
      }
      rateReply() {
        return this.effects().complete(Evaluation.passed(`rated: ${this.currentState().notes.join(', ')}`));
      }
    }
    const result = await evaluate(() => new RenamedReview(), inFlight);
    expect(result.getEvaluation().explanation).toBe('rated: start, read 2x');
  });

  it('points from a method name to its id when transitionTo names the method as a string', async () => {
    class ByMethodName extends Review {
      override onEvaluation() {
        return this.effects().transitionTo('scoreReply');
      }
    }
    const result = await evaluate(() => new ByMethodName());
    expect(result.getFailureMessage()).toBe(
      'evaluator stepper: step "onEvaluation" failed: step "scoreReply" is not a declared step of ByMethodName ' +
        '(its method is declared as step "score-reply": transitionTo(\'score-reply\'))',
    );
  });
});

describe('retry policies', () => {
  it('waits initialInterval × backoffCoefficient^n between attempts, capped at maximumInterval', () => {
    const policy = resolveRetryPolicy(
      { maximumAttempts: 5, initialInterval: '100ms', backoffCoefficient: 3, maximumInterval: '0.5s' },
      'test',
    );
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(policy, attempt))).toEqual([100, 300, 500, 500]);
    // Defaults: no retry; a policy that sets only initialInterval caps its waits at 100 × it.
    expect(resolveRetryPolicy({}, 'test')).toMatchObject({ maximumAttempts: 1, initialIntervalMs: 1_000 });
    expect(resolveRetryPolicy({ initialInterval: '2s' }, 'test')).toMatchObject({
      backoffCoefficient: 2,
      maximumIntervalMs: 200_000,
    });
    expect(DurableSettings.defaults().withRetry({ initialInterval: '1.5s', maximumInterval: '1m' }).retry).toEqual({
      maximumAttempts: 1,
      initialIntervalMs: 1_500,
      backoffCoefficient: 2,
      maximumIntervalMs: 60_000,
      nonRetryableErrorTypes: [],
    });
    expect(DurableSettings.defaults().withEvaluationTimeout('1h30m').evaluationTimeoutMs).toBe(5_400_000);
  });

  it('runs a failed step again after the backoff, then records the last cause', async () => {
    const starts: number[] = [];
    class Flaky extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults().withRetry({ maximumAttempts: 3, initialInterval: 40, backoffCoefficient: 2 });
      }
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo(this.judge);
      }
      judge(): never {
        starts.push(performance.now());
        throw new RangeError(`attempt ${starts.length}`);
      }
    }
    const result = await evaluate(() => new Flaky());
    expect(result.outcome).toEqual({
      type: 'failed',
      error: 'evaluator stepper: step "judge" failed after 3 attempts: attempt 3',
      errorType: 'RangeError',
    });
    expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(35);
    expect(starts[2] - starts[1]).toBeGreaterThanOrEqual(75);
  });

  it('fails at once on an error named in nonRetryableErrorTypes', async () => {
    let runs = 0;
    class Strict extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults().withRetry({
          maximumAttempts: 5,
          initialInterval: 1,
          nonRetryableErrorTypes: ['TypeError'],
        });
      }
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo(this.judge);
      }
      judge(): never {
        runs++;
        throw new TypeError('criteria is not a list');
      }
    }
    const result = await evaluate(() => new Strict());
    expect(result.getFailureMessage()).toBe('evaluator stepper: step "judge" failed: criteria is not a list');
    expect(runs).toBe(1);
  });

  it('lets a step override the evaluator policy field by field, and its timeout', async () => {
    const runs: Record<string, number> = {};
    const count = (step: string) => (runs[step] = (runs[step] ?? 0) + 1);
    class Mixed extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults()
          .withDefaultStepTimeout('10m')
          .withRetry({ maximumAttempts: 1, initialInterval: 1 });
      }
      override steps(): StepDeclarations {
        return {
          flaky: { run: this.flaky, retry: { maximumAttempts: 3 } },
          slow: { run: this.slow, timeout: 30 },
        };
      }
      onEvaluation() {
        return this.effects().transitionTo(this.flaky);
      }
      flaky() {
        if (count('flaky') < 3) throw new Error('not yet');
        return this.effects().transitionTo(this.slow);
      }
      async slow() {
        count('slow');
        const { signal } = this.evaluationContext();
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        return this.effects().complete(Evaluation.passed('too late'));
      }
    }
    const result = await evaluate(() => new Mixed());
    expect(result.outcome).toEqual({
      type: 'failed',
      error: 'evaluator stepper: step "slow" failed: did not finish within 30 ms (step timeout)',
      errorType: 'TimeoutError',
    });
    // flaky: 3 attempts (its own policy, the evaluator's 1 ms interval); slow: 1 (the evaluator's policy).
    expect(runs).toEqual({ flaky: 3, slow: 1 });
  });
});

function captured(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('bad declarations fail when given, naming the field', () => {
  const withRetry = (policy: unknown) => () => DurableSettings.defaults().withRetry(policy as RetryPolicy);
  it.each([
    [{ maximumAttempts: 0 }, 'retry.maximumAttempts', 'retry.maximumAttempts must be an integer from 1 to 100 (got 0)'],
    [{ maximumAttempts: 2.5 }, 'retry.maximumAttempts', 'must be an integer from 1 to 100 (got 2.5)'],
    [{ initialInterval: 'soon' }, 'retry.initialInterval', 'retry.initialInterval must be a duration such as 500ms'],
    [{ backoffCoefficient: 0.5 }, 'retry.backoffCoefficient', 'must be a number from 1 to 100 (got 0.5)'],
    [
      { initialInterval: '5s', maximumInterval: '1s' },
      'retry.maximumInterval',
      'retry.maximumInterval must be at least initialInterval (5000 ms) (got "1s")',
    ],
    [{ nonRetryableErrorTypes: 'TypeError' }, 'retry.nonRetryableErrorTypes', 'must be a list of error names'],
    [{ maxAttempts: 3 }, 'retry.maxAttempts', 'retry.maxAttempts is not a field of a retry policy'],
  ])('withRetry(%j)', (policy, field, message) => {
    expect(withRetry(policy)).toThrow(EvaluatorDefinitionError);
    const error = captured(withRetry(policy)) as EvaluatorDefinitionError;
    expect(error.message).toMatch(/^DurableSettings\.withRetry: retry\./);
    expect(error.message).toContain(message);
    expect(error.field).toBe(field);
  });

  it('checks steps() before onEvaluation runs: a failed evaluation naming the step and the field', async () => {
    let started = 0;
    const declaring = (steps: (self: DurableEvaluator) => unknown) =>
      class extends DurableEvaluator {
        override steps() {
          return steps(this) as StepDeclarations;
        }
        onEvaluation() {
          started++;
          return this.effects().transitionTo('judge');
        }
        judge() {
          return this.effects().complete(Evaluation.passed('unreachable'));
        }
      };
    const failure = async (steps: (self: DurableEvaluator & { judge(): unknown }) => unknown) => {
      const Evaluator = declaring(steps as never);
      const result = await evaluate(() => new Evaluator());
      expect(result.outcome).toMatchObject({ type: 'failed', errorType: 'EvaluatorDefinitionError' });
      return result.getFailureMessage();
    };
    expect(await failure((self) => ({ judge: { run: self.judge, retry: { maximumAttempts: 0 } } }))).toBe(
      'evaluator stepper: step "judge": retry.maximumAttempts must be an integer from 1 to 100 (got 0)',
    );
    expect(await failure((self) => ({ judge: { run: self.judge, timeout: 'later' } }))).toMatch(
      /^evaluator stepper: step "judge": timeout must be a duration such as/,
    );
    expect(await failure((self) => ({ judge: { run: self.judge, retries: 2 } }))).toBe(
      'evaluator stepper: step "judge": retries is not a field of a step declaration (the fields: run, retry, timeout)',
    );
    expect(await failure((self) => ({ 'judge the reply': self.judge }))).toMatch(
      /^evaluator stepper: steps\(\): "judge the reply" is not a valid step id/,
    );
    expect(await failure((self) => ({ onEvaluation: self.judge }))).toMatch(
      /^evaluator stepper: steps\(\): "onEvaluation" is not a valid step id \(.*not "onEvaluation"/,
    );
    expect(await failure((self) => ({ judge: self.judge, again: self.judge }))).toBe(
      'evaluator stepper: step "again": declares the same method as step "judge" (each step is its own method)',
    );
    expect(await failure((self) => ({ start: self.onEvaluation }))).toMatch(
      /^evaluator stepper: step "start": onEvaluation is part of the DurableEvaluator API, not a step/,
    );
    expect(await failure(() => ({ judge: 'judge' }))).toMatch(/step "judge": expected a method of the evaluator/);
    expect(started).toBe(0);
  });
});
