/**
 * A durable evaluator outside the collector: `EvaluatorTestKit` (through `runEvaluator`) runs all
 * its steps in memory with the same rules (effects, settings, retries, timeouts); the settings
 * validate their values early; the example TranscriptJudgeDurableEvaluator judges through a model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TranscriptJudgeDurableEvaluator } from '../../../examples/evaluators/transcript-judge-durable-evaluator.ts';
import {
  defineEvaluator,
  DurableEvaluator,
  DurableSettings,
  Evaluation,
  EvaluatorDefinitionError,
  Subject,
} from '../../../src/evaluation/index.ts';
import { createAnthropicModelClient } from '../../../src/judge/index.ts';
import { EvaluatorTestKit, TestLedgerClient, testInteractionRecord } from '../../../src/testing/index.ts';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';

let scripted: ScriptedModel;
beforeAll(async () => {
  scripted = await createScriptedModel();
});
afterAll(() => scripted.close());

const record = testInteractionRecord();
const subject = Subject.interaction(record.interactionId, record.agentId);

class Counter extends DurableEvaluator<{ total: number }> {
  override steps() {
    return { add: this.add };
  }
  onEvaluation() {
    return this.effects().updateState({ total: 0 }).transitionTo(this.add).withInput(1);
  }
  add(amount: number) {
    const total = this.currentState().total + amount;
    if (total < 3)
      return this.effects()
        .updateState({ total })
        .transitionTo(this.add)
        .withInput(amount + 1);
    return this.effects().complete(Evaluation.passed(`total ${total}`).withScore(total / 10));
  }
}

describe('durable evaluators in the test kit', () => {
  it('runs every step in memory, state and input included', async () => {
    const result = await EvaluatorTestKit.of(() => new Counter()).evaluate(subject);
    expect(result.getEvaluation()).toMatchObject({ passed: true, explanation: 'total 3', score: 0.3 });
  });

  it('applies the settings: retries, then a failed result naming the step', async () => {
    let calls = 0;
    class Flaky extends DurableEvaluator {
      override settings() {
        return DurableSettings.defaults().withRetry({ maximumAttempts: 2, initialInterval: '1ms' });
      }
      override steps() {
        return { judge: this.judge };
      }
      onEvaluation() {
        return this.effects().transitionTo('judge');
      }
      judge() {
        calls++;
        throw new Error('judge down');
      }
    }
    const result = await EvaluatorTestKit.of(defineEvaluator({ id: 'flaky', create: () => new Flaky() })).evaluate(
      subject,
    );
    expect(result.getFailureMessage()).toBe('evaluator flaky: step "judge" failed after 2 attempts: judge down');
    expect(calls).toBe(2);
  });

  it('DurableEvaluator.evaluate runs it too: a failure throws with the step named', async () => {
    class Fails extends DurableEvaluator {
      onEvaluation(): never {
        throw new RangeError('no criteria');
      }
    }
    const context = {
      subject,
      evaluationId: 'e-1',
      evaluatorId: 'fails',
      config: () => {
        throw new Error('unused');
      },
      ledger: TestLedgerClient.create(),
      signal: new AbortController().signal,
    };
    await expect(new Fails().evaluate(context as never)).rejects.toMatchObject({
      name: 'RangeError',
      message: 'evaluator fails: step "onEvaluation" failed: no criteria',
    });
    await expect(new Counter().evaluate({ ...context, evaluatorId: 'counter' } as never)).resolves.toMatchObject({
      kind: 'complete',
      evaluation: { explanation: 'total 3' },
    });
  });

  it('validates settings early, naming the setter', () => {
    expect(() => DurableSettings.defaults().withRetry({ maximumAttempts: -1 })).toThrow(EvaluatorDefinitionError);
    expect(() => DurableSettings.defaults().withDefaultStepTimeout('soon' as never)).toThrow(
      /withDefaultStepTimeout: expected a duration/,
    );
    expect(DurableSettings.defaults().withEvaluationTimeout('5m').withDefaultStepTimeout('30s')).toMatchObject({
      evaluationTimeoutMs: 300_000,
      defaultStepTimeoutMs: 30_000,
      retry: { maximumAttempts: 1 },
    });
  });

  it('runs the example TranscriptJudgeDurableEvaluator: one judge step, verdict JSON from the model', async () => {
    scripted.reset().fixedResponse({ text: '{"passed": true, "score": 0.9, "reason": "relevant and specific"}' });
    const model = createAnthropicModelClient({
      baseURL: scripted.baseURL,
      apiKey: 'k',
      model: 'claude-example',
      retryBaseMs: 1,
    });
    const ledger = TestLedgerClient.create().seed(record);
    const result = await EvaluatorTestKit.of(() => new TranscriptJudgeDurableEvaluator(ledger, model))
      .withLedger(ledger)
      .evaluate(subject);
    expect(result.getEvaluation()).toMatchObject({ passed: true, score: 0.9, explanation: 'relevant and specific' });
    expect(String(scripted.requests[0].body.messages[0].content)).toContain('[assistant]: Your order A-17 has shipped');

    scripted.reset().fixedResponse('I think it is fine');
    const unreadable = await EvaluatorTestKit.of(() => new TranscriptJudgeDurableEvaluator(ledger, model))
      .withLedger(ledger)
      .evaluate(subject);
    expect(unreadable.getFailureMessage()).toMatch(
      new RegExp(
        /^evaluator evaluator-under-test: step "judge" failed after 3 attempts: /.source +
          /evaluator transcript-judge-durable-evaluator: the judge's reply is not a verdict/.source,
      ),
    );
    expect(scripted.requests).toHaveLength(3);
  });
});
