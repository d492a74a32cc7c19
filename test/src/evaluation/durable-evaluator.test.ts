/**
 * Durable evaluators in the collector's evaluation runtime, over a real SQLite ledger: steps,
 * state and input, the effect rules, retries, timeouts, `config()` read afresh per step, progress
 * saved after every step, resume after a restart, and run slots held only while a step runs.
 * Step ids, retry policies and resuming progress saved before steps had ids: durable-steps.test.ts
 * and durable-legacy-resume.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import {
  defineEvaluator,
  DurableEvaluator,
  DurableSettings,
  effects,
  Evaluation,
  type EvaluationContext,
} from '../../../src/evaluation/index.ts';
import {
  cleanups,
  gate,
  queue,
  run,
  runCleanups,
  startRuntime,
  waitFor,
  withLedger,
} from './helpers/durable-runtime.ts';

afterEach(runCleanups);

type Calls = Record<string, number>;
const count = (calls: Calls, step: string) => (calls[step] = (calls[step] ?? 0) + 1);

interface ChainState {
  verdicts: string[];
}

/** onEvaluation → first (state) → second (input, state) → complete. */
class ChainEvaluator extends DurableEvaluator<ChainState> {
  readonly calls: Calls;
  readonly secondGate: Promise<void> | undefined;
  constructor(calls: Calls, secondGate?: Promise<void>) {
    super();
    this.calls = calls;
    this.secondGate = secondGate;
  }
  override emptyState(): ChainState {
    return { verdicts: [] };
  }
  override steps() {
    return { first: this.first, second: this.second };
  }
  onEvaluation(context: EvaluationContext) {
    count(this.calls, 'onEvaluation');
    return this.effects()
      .updateState({ verdicts: [`start ${context.subject.agentId}`] })
      .transitionTo(this.first);
  }
  first() {
    count(this.calls, 'first');
    const state = this.currentState();
    state.verdicts.push('first');
    return this.effects().updateState(state).transitionTo('second').withInput({ from: 'first', n: 2 });
  }
  async second(input: { from: string; n: number }) {
    count(this.calls, 'second');
    if (this.secondGate) {
      const { signal } = this.evaluationContext();
      await Promise.race([
        this.secondGate,
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      ]);
    }
    const { verdicts } = this.currentState();
    return this.effects().complete(
      Evaluation.passed(`${verdicts.join(', ')}, second got ${input.from}/${input.n}`).withScore(input.n / 4),
    );
  }
}

describe('durable evaluators in the runtime', () => {
  it('chains steps with updateState/currentState and withInput, and records the verdict once', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    const record = await run(ledger, [defineEvaluator({ id: 'chain', create: () => new ChainEvaluator(calls) })]);
    expect(record.outcome).toEqual({
      type: 'verdict',
      evaluation: {
        passed: true,
        explanation: 'start support-agent, first, second got first/2',
        score: 0.5,
        attributes: {},
      },
    });
    expect(record.attempts).toBe(1);
    expect(calls).toEqual({ onEvaluation: 1, first: 1, second: 1 });
  });

  it('saves the progress after every completed step, before the next step runs', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    const second = gate();
    const { runtime, recorded } = await startRuntime(ledger, [
      defineEvaluator({ id: 'chain', create: () => new ChainEvaluator(calls, second.opened) }),
    ]);
    cleanups.push(() => runtime.shutdown());
    await queue(ledger, runtime, 'chain');
    const [saved] = await waitFor(async () => {
      const rows = await ledger.store.loadQueuedEvaluations();
      return rows[0]?.progress?.step === 'second' ? rows : undefined;
    });
    expect(saved.progress).toEqual({
      step: 'second',
      input: { from: 'first', n: 2 },
      state: { verdicts: ['start support-agent', 'first'] },
      completedSteps: 2,
      firstStartedAt: saved.startedAt,
    });
    second.open();
    await runtime.idle();
    expect(recorded.map((record) => record.outcome.type)).toEqual(['verdict']);
  });

  it('resumes after a restart at the saved step: onEvaluation and completed steps do not run again; the step that was running does', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    const never = new Promise<void>(() => {});
    const first = await startRuntime(ledger, [
      defineEvaluator({ id: 'chain', create: () => new ChainEvaluator(calls, never) }),
    ]);
    await queue(ledger, first.runtime, 'chain');
    await waitFor(() => (calls.second === 1 ? true : undefined));
    await first.runtime.shutdown(); // grace 0: the running step is aborted, the evaluation stays queued
    expect(first.recorded).toEqual([]);
    const [queued] = await ledger.store.loadQueuedEvaluations();
    expect(queued.progress).toMatchObject({ step: 'second', completedSteps: 2 });

    const second = await startRuntime(ledger, [
      defineEvaluator({ id: 'chain', create: () => new ChainEvaluator(calls) }),
    ]);
    cleanups.push(() => second.runtime.shutdown());
    await second.runtime.idle();
    expect(calls).toEqual({ onEvaluation: 1, first: 1, second: 2 });
    expect(second.recorded).toHaveLength(1);
    expect(second.recorded[0]).toMatchObject({
      attempts: 2,
      outcome: { type: 'verdict', evaluation: { explanation: 'start support-agent, first, second got first/2' } },
    });
    expect(await ledger.store.countQueuedEvaluations()).toBe(0);
  });

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
      /^evaluator slow: the evaluation did not finish within 200 ms of its first start at \S+ \(evaluation timeout, step "judge" (while|before) it ran\)$/,
    );
    expect(calls.judge ?? 0).toBeLessThanOrEqual(1); // the evaluation timeout is not retried
  });

  it('counts the evaluation timeout from the persisted firstStartedAt: a resumed evaluation past it fails without running a step', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    const queued = await queue(ledger, undefined, 'chain');
    const firstStartedAt = new Date(Date.now() - 3_600_000).toISOString();
    await ledger.store.saveEvaluationProgress([
      { seq: queued.seq!, progress: { step: 'second', input: { from: 'x', n: 1 }, completedSteps: 2, firstStartedAt } },
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
      error: `evaluator chain: the evaluation did not finish within 1800000 ms of its first start at ${firstStartedAt} (evaluation timeout, step "second" before it ran)`,
      errorType: 'TimeoutError',
    });
    expect(calls).toEqual({});
  });

  it('reads config() afresh for every step: a step after a configuration change sees the new one', async () => {
    const ledger = await withLedger();
    let config: Record<string, unknown> = { rubric: 'v1' };
    const seen: string[] = [];
    class Configured extends DurableEvaluator {
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation(context: EvaluationContext) {
        seen.push(context.config().getString('rubric'));
        config = { rubric: 'v2' }; // a hot reload while the first step ran
        return this.effects().transitionTo(this.judge);
      }
      judge() {
        const rubric = this.evaluationContext().config().getString('rubric');
        seen.push(rubric);
        return this.effects().complete(Evaluation.passed(`judged with ${rubric}`));
      }
    }
    const record = await run(
      ledger,
      [defineEvaluator({ id: 'configured', create: () => new Configured() })],
      'configured',
      { config: () => config },
    );
    expect(seen).toEqual(['v1', 'v2']);
    expect(record.outcome).toMatchObject({ type: 'verdict', evaluation: { explanation: 'judged with v2' } });
  });

  it('fails a step whose new state or input is not JSON, naming what is not', async () => {
    const ledger = await withLedger();
    class DateState extends DurableEvaluator<{ at: Date }> {
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().updateState({ at: new Date() }).transitionTo(this.judge);
      }
      judge() {
        return this.effects().complete(Evaluation.passed('unreachable'));
      }
    }
    class MapInput extends DurableEvaluator {
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo(this.judge).withInput({ seen: new Map() });
      }
      judge() {
        return this.effects().complete(Evaluation.passed('unreachable'));
      }
    }
    const state = await run(ledger, [defineEvaluator({ id: 'date-state', create: () => new DateState() })]);
    expect(state.outcome).toEqual({
      type: 'failed',
      error:
        'evaluator date-state: step "onEvaluation" failed: the new state is not JSON: state.at is a Date, not a plain object (state is saved as JSON after every step)',
      errorType: 'DurableEffectError',
    });
    const ledger2 = await withLedger();
    const input = await run(ledger2, [defineEvaluator({ id: 'map-input', create: () => new MapInput() })]);
    expect(input.outcome).toMatchObject({
      type: 'failed',
      error: expect.stringContaining('the input of step "judge" is not JSON: input.seen is a Map'),
    });
  });

  it('refuses a transition after complete, and updateState without a transition', async () => {
    const ledger = await withLedger();
    class CompletesThenTransitions extends DurableEvaluator {
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        this.effects().complete(Evaluation.passed('done'));
        return this.effects().transitionTo(this.judge);
      }
      judge() {
        return effects.complete(Evaluation.passed('unreachable'));
      }
    }
    class StateOnly extends DurableEvaluator<number> {
      onEvaluation() {
        return this.effects().updateState(1) as never;
      }
    }
    const completed = await run(ledger, [
      defineEvaluator({ id: 'completes', create: () => new CompletesThenTransitions() }),
    ]);
    expect(completed.outcome).toMatchObject({
      type: 'failed',
      error:
        'evaluator completes: step "onEvaluation" failed: transitionTo after the evaluation was completed (a finished evaluation cannot transition further)',
    });
    const ledger2 = await withLedger();
    const stateOnly = await run(ledger2, [defineEvaluator({ id: 'state-only', create: () => new StateOnly() })]);
    expect(stateOnly.outcome).toMatchObject({
      type: 'failed',
      error: expect.stringContaining('returned updateState(…) without a transition'),
    });
  });

  it('fails, without retrying, a transition to a step that is not declared, naming the evaluator and the step', async () => {
    const ledger = await withLedger();
    const calls: Calls = {};
    class Misnamed extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults().withRetry({ maximumAttempts: 3, initialInterval: '5ms' });
      }
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        count(calls, 'onEvaluation');
        return this.effects().transitionTo('jugde');
      }
      judge() {
        return this.effects().complete(Evaluation.passed('unreachable'));
      }
    }
    class Inline extends DurableEvaluator {
      onEvaluation() {
        return this.effects().transitionTo(() => this.effects().complete(Evaluation.passed('inline')));
      }
    }
    const misnamed = await run(ledger, [defineEvaluator({ id: 'misnamed', create: () => new Misnamed() })]);
    expect(misnamed.outcome).toEqual({
      type: 'failed',
      error:
        'evaluator misnamed: step "onEvaluation" failed: step "jugde" is not a declared step of Misnamed (declared steps: "judge"; declare it in steps())',
      errorType: 'DurableEffectError',
    });
    expect(calls).toEqual({ onEvaluation: 1 });
    const ledger2 = await withLedger();
    const inline = await run(ledger2, [defineEvaluator({ id: 'inline', create: () => new Inline() })]);
    expect(inline.outcome).toMatchObject({
      type: 'failed',
      error: expect.stringContaining(
        'the function is not a declared step of Inline (declare the method in steps(), as in { judge: this.judge }, and pass it or its id; a bound or inline function is not the declared method)',
      ),
    });
  });

  it('holds a run slot only while a step runs: a plain evaluator runs while a durable one saves its progress', async () => {
    const ledger = await withLedger();
    const save = gate();
    let saves = 0;
    // The store's progress write waits for the test: the durable evaluation sits between its steps.
    const store: LedgerStore = {
      ...ledger.store,
      async saveEvaluationProgress(updates) {
        if (saves++ === 0) {
          save.reached();
          await save.opened;
        }
        return ledger.store.saveEvaluationProgress(updates);
      },
    };
    const calls: Calls = {};
    const plain = defineEvaluator({
      id: 'plain',
      create: () => ({ evaluate: () => effects.complete(Evaluation.passed('plain')) }),
    });
    const { runtime, recorded } = await startRuntime(
      ledger,
      [defineEvaluator({ id: 'chain', create: () => new ChainEvaluator(calls) }), plain],
      { concurrency: 1, store },
    );
    cleanups.push(() => runtime.shutdown());
    await queue(ledger, runtime, 'chain');
    await save.wasReached;
    expect(runtime.stats.running).toBe(0);
    await queue(ledger, runtime, 'plain');
    await waitFor(() => (recorded.length === 1 ? true : undefined));
    expect(recorded[0].evaluatorId).toBe('plain');
    expect(calls).toEqual({ onEvaluation: 1 });
    save.open();
    await runtime.idle();
    expect(recorded.map((record) => record.evaluatorId)).toEqual(['plain', 'chain']);
  });
});
