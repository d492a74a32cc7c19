/**
 * Durable evaluators in the collector's evaluation runtime, over a real SQLite ledger: a failed
 * step retried as its settings say (and not without them), the step timeout, and the evaluation
 * timeout, counted from the first start saved with the progress.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineEvaluator, DurableEvaluator, DurableSettings, Evaluation } from '../../../src/evaluation/index.ts';
import { type Calls, ChainEvaluator, count } from './helpers/chain-evaluator.ts';
import { cleanups, queue, run, runCleanups, startRuntime, withLedger } from './helpers/durable-runtime.ts';

afterEach(runCleanups);

describe('durable evaluators in the runtime', () => {
  it('without settings() a failed step is not retried: a failed record naming the step', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    class Failing extends DurableEvaluator {
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo(this.judge);
      }
      judge() {
        count(calls, 'judge');
        throw new Error('model unavailable');
      }
    }
    const record = await run(ledger, [defineEvaluator({ id: 'failing', create: () => new Failing() })]);
    expect(record.outcome).toEqual({
      type: 'failed',
      error: 'evaluator failing: step "judge" failed: model unavailable',
      errorType: 'Error',
    });
    expect(calls).toEqual({ judge: 1 });
  });

  it('retries a failed step up to the policy maximumAttempts: success on the last attempt is a verdict', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    class Flaky extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults().withRetry({ maximumAttempts: 3, initialInterval: '5ms' });
      }
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo(this.judge);
      }
      judge() {
        if (count(calls, 'judge') < 3) throw new Error(`flaky ${calls.judge}`);
        return this.effects().complete(Evaluation.passed('third time'));
      }
    }
    const record = await run(ledger, [defineEvaluator({ id: 'flaky', create: () => new Flaky() })]);
    expect(record.outcome).toMatchObject({ type: 'verdict', evaluation: { passed: true, explanation: 'third time' } });
    expect(calls).toEqual({ judge: 3 });
  });

  it('records a failed evaluation naming the step and the last cause when the retries are exhausted', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    class Broken extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults().withRetry({ maximumAttempts: 3, initialInterval: '5ms' });
      }
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo('judge');
      }
      judge() {
        throw new TypeError(`broken ${count(calls, 'judge')}`);
      }
    }
    const record = await run(ledger, [defineEvaluator({ id: 'broken', create: () => new Broken() })]);
    expect(record.outcome).toEqual({
      type: 'failed',
      error: 'evaluator broken: step "judge" failed after 3 attempts: broken 3',
      errorType: 'TypeError',
    });
    expect(calls).toEqual({ judge: 3 });
  });

  it('fails a step that outlives its step timeout, aborting its signal', async () => {
    const ledger = await withLedger();
    let abortReason: unknown;
    class Stuck extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults().withDefaultStepTimeout(50);
      }
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo(this.judge);
      }
      async judge() {
        const { signal } = this.evaluationContext();
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        abortReason = signal.reason;
        return this.effects().complete(Evaluation.passed('too late'));
      }
    }
    const record = await run(ledger, [defineEvaluator({ id: 'stuck', create: () => new Stuck() })]);
    expect(record.outcome).toEqual({
      type: 'failed',
      error: 'evaluator stuck: step "judge" failed: did not finish within 50 ms (step timeout)',
      errorType: 'TimeoutError',
    });
    expect(abortReason).toMatchObject({ name: 'TimeoutError' });
  });

  it('fails the evaluation at its evaluation timeout, even while a step has time left', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    class Slow extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults()
          .withEvaluationTimeout(200)
          .withDefaultStepTimeout('10m')
          .withRetry({ maximumAttempts: 4, initialInterval: 0 });
      }
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo(this.judge);
      }
      judge() {
        count(calls, 'judge');
        return new Promise<never>(() => {});
      }
    }
    const record = await run(ledger, [defineEvaluator({ id: 'slow', create: () => new Slow() })]);
    expect(record.outcome).toMatchObject({ type: 'failed', errorType: 'TimeoutError' });
    const error = (record.outcome as { error: string }).error;
    // On a loaded machine the deadline may pass while the progress is saved, before "judge" starts.
    expect(error).toMatch(
      new RegExp(
        /^evaluator slow: the evaluation did not finish within 200 ms of its first start at \S+ /.source +
          /\(evaluation timeout, step "judge" (while|before) it ran\)$/.source,
      ),
    );
    expect(calls.judge ?? 0).toBeLessThanOrEqual(1); // the evaluation timeout is not retried
  });

  it(
    'counts the evaluation timeout from the persisted firstStartedAt: a resumed evaluation past it fails ' +
      'without running a step',
    async () => {
      const ledger = await withLedger();
      const calls: Calls = {};
      const queued = await queue(ledger, undefined, 'chain');
      const firstStartedAt = new Date(Date.now() - 3_600_000).toISOString();
      await ledger.store.saveEvaluationProgress([
        {
          seq: queued.seq!,
          progress: { step: 'second', input: { from: 'x', n: 1 }, completedSteps: 2, firstStartedAt },
        },
      ]);
      class TimedChain extends ChainEvaluator {
        override settings() {
          return DurableSettings.defaults().withEvaluationTimeout('30m');
        }
      }
      const { runtime, recorded } = await startRuntime(ledger, [
        defineEvaluator({ id: 'chain', create: () => new TimedChain(calls) }),
      ]);
      cleanups.push(() => runtime.shutdown());
      await runtime.idle();
      expect(recorded).toHaveLength(1);
      expect(recorded[0].outcome).toEqual({
        type: 'failed',
        error:
          `evaluator chain: the evaluation did not finish within 1800000 ms of its first start at ` +
          `${firstStartedAt} (evaluation timeout, step "second" before it ran)`,
        errorType: 'TimeoutError',
      });
      expect(calls).toEqual({});
    },
  );
});
