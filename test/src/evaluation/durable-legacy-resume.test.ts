/**
 * Progress saved before durable steps had ids names the step by its method name. Such progress
 * still resumes: a saved name that is no declared id is looked up as a method declared as a step,
 * the evaluation goes on there and saves the step's id from then on; a name matching neither fails
 * the evaluation, naming it. Checked in the collector's runtime over a real SQLite ledger, and for
 * the built-in `criteria-judge` (whose `judgeCriterion` method is now the "judge-criterion" step).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCriteriaJudgeEvaluator, type CriteriaJudgeState } from '../../../collector/evaluators/criteria-judge.ts';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import {
  defineEvaluator,
  DurableEvaluator,
  Evaluation,
  Subject,
  type DurableProgress,
  type EvaluatorDefinition,
  type StepDeclarations,
} from '../../../src/evaluation/index.ts';
import { EvaluatorTestKit, TestLedgerClient, testInteractionRecord } from '../../../src/testing/index.ts';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';
import { cleanups, queue, runCleanups, startRuntime, withLedger, type Ledger } from './helpers/durable-runtime.ts';

afterEach(runCleanups);

let scripted: ScriptedModel;
beforeAll(async () => {
  scripted = await createScriptedModel();
});
afterAll(() => scripted.close());

/** As the previous version of the evaluator saved it: the next step named by its method, `second`. */
const legacyProgress = (): DurableProgress => ({
  step: 'second',
  input: { from: 'first', n: 2 },
  state: { verdicts: ['start support-agent', 'first'] },
  completedSteps: 2,
  firstStartedAt: new Date().toISOString(),
});

/** The same evaluator under the step-id API: its steps declared under ids that are not the method names. */
class MigratedChain extends DurableEvaluator<{ verdicts: string[] }> {
  readonly calls: string[];
  constructor(calls: string[]) {
    super();
    this.calls = calls;
  }
  override steps(): StepDeclarations {
    return { 'first-step': this.first, 'second-step': this.second, 'third-step': this.third };
  }
  onEvaluation() {
    this.calls.push('onEvaluation');
    return this.effects()
      .updateState({ verdicts: ['start'] })
      .transitionTo(this.first);
  }
  first() {
    this.calls.push('first');
    return this.effects().transitionTo(this.second).withInput({ from: 'first', n: 2 });
  }
  second(input: { from: string; n: number }) {
    this.calls.push('second');
    const verdicts = [...this.currentState().verdicts, `second got ${input.from}/${input.n}`];
    return this.effects().updateState({ verdicts }).transitionTo(this.third);
  }
  third() {
    this.calls.push('third');
    return this.effects().complete(Evaluation.passed(this.currentState().verdicts.join(', ')));
  }
}

/**
 * Queues one evaluation with `progress` saved, runs the runtime until it is recorded; collects every
 * progress saved.
 */
async function resume(ledger: Ledger, definition: EvaluatorDefinition, progress: DurableProgress) {
  const queued = await queue(ledger, undefined, definition.id);
  await ledger.store.saveEvaluationProgress([{ seq: queued.seq!, progress }]);
  const saved: DurableProgress[] = [];
  const store: LedgerStore = {
    ...ledger.store,
    async saveEvaluationProgress(updates) {
      saved.push(...updates.map((update) => update.progress));
      return ledger.store.saveEvaluationProgress(updates);
    },
  };
  const { runtime, recorded } = await startRuntime(ledger, [definition], { store });
  cleanups.push(() => runtime.shutdown());
  await runtime.idle();
  expect(recorded).toHaveLength(1);
  expect(await ledger.store.countQueuedEvaluations()).toBe(0);
  return { record: recorded[0], saved };
}

describe('progress saved before steps had ids', () => {
  it('resumes at the step whose method the saved name names, and saves the declared id from then on', async () => {
    const ledger = await withLedger();
    const calls: string[] = [];
    const definition = defineEvaluator({ id: 'chain', create: () => new MigratedChain(calls) });
    const progress = legacyProgress();
    const { record, saved } = await resume(ledger, definition, progress);
    expect(calls).toEqual(['second', 'third']);
    expect(record.outcome).toEqual({
      type: 'verdict',
      evaluation: {
        passed: true,
        explanation: 'start support-agent, first, second got first/2',
        attributes: {},
      },
    });
    expect(record.attempts).toBe(1);
    expect(saved).toEqual([
      {
        step: 'third-step',
        state: { verdicts: ['start support-agent', 'first', 'second got first/2'] },
        completedSteps: 3,
        firstStartedAt: progress.firstStartedAt,
      },
    ]);
  });

  it('prefers a declared id over a method of the same name', async () => {
    const ledger = await withLedger();
    const calls: string[] = [];
    class IdShadowsMethod extends MigratedChain {
      // The id "second" now names the third step: saved progress naming "second" means the id.
      override steps(): StepDeclarations {
        return { second: this.third, 'second-step': this.second };
      }
    }
    const definition = defineEvaluator({ id: 'shadow', create: () => new IdShadowsMethod(calls) });
    const { record } = await resume(ledger, definition, legacyProgress());
    expect(calls).toEqual(['third']);
    expect(record.outcome).toMatchObject({
      type: 'verdict',
      evaluation: { explanation: 'start support-agent, first' },
    });
  });

  it(
    'fails, naming the saved step, when it is neither a ' + 'declared id nor the name of a method declared as a step',
    async () => {
      const ledger = await withLedger();
      const calls: string[] = [];
      const definition = defineEvaluator({ id: 'chain', create: () => new MigratedChain(calls) });
      const { record } = await resume(ledger, definition, { ...legacyProgress(), step: 'judge' });
      expect(record.outcome).toEqual({
        type: 'failed',
        error:
          'evaluator chain: the saved progress names step "judge", which is neither a declared step id nor the ' +
          "name of a method declared as a step (keep the step's id, or its method's name, until evaluations " +
          'saved before the change have finished)',
        errorType: 'DurableEffectError',
      });
      expect(calls).toEqual([]);
    },
  );

  it(
    'resumes the built-in criteria-judge from progress naming its judgeCriterion method: criteria already ' +
      'judged are not asked again',
    async () => {
      scripted.reset().fixedResponse({
        toolUse: [{ name: 'record_verdict', input: { passed: true, reasoning: 'states the date' } }],
        usage: { input_tokens: 100, output_tokens: 10 },
      });
      const state: CriteriaJudgeState = {
        criteria: [
          {
            name: 'polite',
            description: 'The agent is polite',
            criterionType: 'binary',
            requireToolCall: false,
            weight: 1,
          },
          {
            name: 'arrival',
            description: 'The agent states the arrival date',
            criterionType: 'binary',
            requireToolCall: false,
            weight: 1,
          },
        ],
        promptTemplate: 'Judge the interaction.',
        modelName: 'claude-criteria',
        results: [
          {
            name: 'polite',
            description: 'The agent is polite',
            criterionType: 'binary',
            weight: 1,
            passed: true,
            score: 1,
            reasoning: 'polite throughout',
            outcome: 'judged',
            usage: { input_tokens: 100, output_tokens: 10 },
          },
        ],
        calls: 1,
      };
      const record = testInteractionRecord();
      const ledger = TestLedgerClient.create().seed(record);
      const definition = createCriteriaJudgeEvaluator({
        env: { ANTHROPIC_BASE_URL: scripted.baseURL, ANTHROPIC_API_KEY: 'test-key', EVALON_MODEL: 'claude-criteria' },
        client: { retryBaseMs: 1 },
      });
      const result = await EvaluatorTestKit.of(definition)
        .withLedger(ledger)
        .withProgress({
          step: 'judgeCriterion',
          input: 1,
          state,
          completedSteps: 2,
          firstStartedAt: new Date().toISOString(),
        })
        .evaluate(Subject.interaction(record.interactionId, record.agentId));
      expect(result.getEvaluation()).toMatchObject({
        passed: true,
        score: 1,
        explanation: '✓ polite: polite throughout\n✓ arrival: states the date',
        attributes: { criteria_passed: 2, criteria_total: 2, 'gen_ai.usage.input_tokens': 200 },
      });
      expect(scripted.requests).toHaveLength(1);
      expect(String(scripted.requests[0].body.messages[0].content)).toContain('The agent states the arrival date');
    },
  );
});
