/**
 * Durable evaluators in the collector's evaluation runtime, over a real SQLite ledger: steps,
 * state and input, progress saved after every step, resume after a restart, `config()` read afresh
 * per step, and run slots held only while a step runs. Retries and timeouts:
 * durable-evaluator-retries-and-timeouts.test.ts; the effect rules: durable-evaluator-effects.test.ts;
 * step ids and retry policies: durable-steps.test.ts; resuming progress saved before steps had
 * ids: durable-legacy-resume.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import {
  defineEvaluator,
  DurableEvaluator,
  effects,
  Evaluation,
  type EvaluationContext,
} from '../../../src/evaluation/index.ts';
import { type Calls, ChainEvaluator } from './helpers/chain-evaluator.ts';
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

  it(
    'resumes after a restart at the saved step: onEvaluation and completed steps do not run again; the step ' +
      'that was running does',
    async () => {
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
    },
  );

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

  it(
    'holds a run slot only while a step runs: a plain ' + 'evaluator runs while a durable one saves its progress',
    async () => {
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
    },
  );
});
