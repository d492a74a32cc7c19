/**
 * Durable evaluators in the collector's evaluation runtime, over a real SQLite ledger: the effect
 * rules — state and input must be JSON, no transition after complete, no updateState without a
 * transition, and a transition only to a declared step (not retried).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  defineEvaluator,
  DurableEvaluator,
  DurableSettings,
  effects,
  Evaluation,
} from '../../../src/evaluation/index.ts';
import { type Calls, count } from './helpers/chain-evaluator.ts';
import { run, runCleanups, withLedger } from './helpers/durable-runtime.ts';

afterEach(runCleanups);

describe('durable evaluators in the runtime', () => {
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
        'evaluator date-state: step "onEvaluation" failed: the new state is not JSON: state.at is a Date, not a ' +
        'plain object (state is saved as JSON after every step)',
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
        'evaluator completes: step "onEvaluation" failed: transitionTo after the evaluation was completed (a ' +
        'finished evaluation cannot transition further)',
    });
    const ledger2 = await withLedger();
    const stateOnly = await run(ledger2, [defineEvaluator({ id: 'state-only', create: () => new StateOnly() })]);
    expect(stateOnly.outcome).toMatchObject({
      type: 'failed',
      error: expect.stringContaining('returned updateState(…) without a transition'),
    });
  });

  it(
    'fails, without retrying, a transition to a step that ' + 'is not declared, naming the evaluator and the step',
    async () => {
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
          'evaluator misnamed: step "onEvaluation" failed: step "jugde" is not a declared step of Misnamed ' +
          '(declared steps: "judge"; declare it in steps())',
        errorType: 'DurableEffectError',
      });
      expect(calls).toEqual({ onEvaluation: 1 });
      const ledger2 = await withLedger();
      const inline = await run(ledger2, [defineEvaluator({ id: 'inline', create: () => new Inline() })]);
      expect(inline.outcome).toMatchObject({
        type: 'failed',
        error: expect.stringContaining(
          'the function is not a declared step of Inline (declare the method in steps(), as in { judge: this.judge ' +
            '}, and pass it or its id; a bound or inline function is not the declared method)',
        ),
      });
    },
  );
});
