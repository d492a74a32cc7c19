/**
 * "Unit testing an evaluator" (docs/testing.md), in TypeScript: EvaluatorTestKit over a chosen subject,
 * a TestLedgerClient seeded with records, withConfig for evaluators that read config().
 */
import { describe, expect, it } from 'vitest';
import {
  defineEvaluator,
  effects,
  Evaluation,
  MissingConfigPropertyError,
  Subject,
  type EvaluationContext,
  type Evaluator,
} from '../../../src/evaluation/index.ts';
import { EvaluatorTestKit, TestLedgerClient, testInteractionRecord } from '../../../src/testing/index.ts';
import {
  InteractionQualityEvaluator,
  interactionQualityEvaluator,
} from '../../../examples/evaluators/interaction-quality-evaluator.ts';
import { ReplyLengthEvaluator } from '../../../examples/evaluators/reply-length-evaluator.ts';

const sampleRecord = (interactionId: string, overrides = {}) => ({
  ...testInteractionRecord(overrides),
  interactionId,
});

describe('EvaluatorTestKit with the example InteractionQualityEvaluator', () => {
  it(
    'completes with a passing evaluation for an interaction ' + 'with a final response (the documented sample)',
    async () => {
      const stubLedger = TestLedgerClient.create().seed(sampleRecord('interaction-1'));
      const testKit = EvaluatorTestKit.of(() => new InteractionQualityEvaluator(stubLedger));

      const result = await testKit.evaluate(Subject.interaction('interaction-1', 'support-agent'));

      expect(result.isComplete()).toBe(true);
      expect(result.getEvaluation().passed).toBe(true);
      expect(result.getEvaluation().score).toBe(1.0);
      expect(result.getEvaluation().attributes).toEqual({ length: '50' });
    },
  );

  it('is inconclusive for a failed interaction', async () => {
    const stubLedger = TestLedgerClient.create().seed(
      sampleRecord('interaction-2', { failed: true, failureSummary: 'guardrail' }),
    );
    const result = await EvaluatorTestKit.of(() => new InteractionQualityEvaluator(stubLedger)).evaluate(
      Subject.interaction('interaction-2', 'support-agent'),
    );
    expect(result.isComplete()).toBe(false);
    expect(result.isInconclusive()).toBe(true);
    expect(result.getInconclusiveReason()).toBe('interaction failed, nothing to evaluate');
    expect(() => result.getEvaluation()).toThrow(/no verdict: it was inconclusive \(interaction failed/);
  });

  it('completes with a failing evaluation when there is no final response', async () => {
    const stubLedger = TestLedgerClient.create().seed(sampleRecord('interaction-3', { finalResponseText: '' }));
    const result = await EvaluatorTestKit.of(() => new InteractionQualityEvaluator(stubLedger)).evaluate({
      interactionId: 'interaction-3',
      agentId: 'support-agent',
    });
    expect(result.isComplete()).toBe(true);
    expect(result.getEvaluation().passed).toBe(false);
    expect(result.getEvaluation().explanation).toBe('agent produced no final response');
  });

  it('fails the evaluation when the ledger has no such interaction', async () => {
    const result = await EvaluatorTestKit.of(() => new InteractionQualityEvaluator(TestLedgerClient.create())).evaluate(
      Subject.interaction('nope', 'support-agent'),
    );
    expect(result.isFailed()).toBe(true);
    expect(result.getFailureMessage()).toBe('ledger: interaction nope not found');
    expect((result.getError() as Error).name).toBe('InteractionNotFoundError');
  });

  it('runs an evaluator definition, giving its create the kit’s ledger', async () => {
    const ledger = TestLedgerClient.create().seed(sampleRecord('interaction-1'));
    const result = await EvaluatorTestKit.of(interactionQualityEvaluator)
      .withLedger(ledger)
      .evaluate(Subject.interaction('interaction-1', 'support-agent'));
    expect(result.getEvaluation().passed).toBe(true);
    expect(result.outcome).toEqual({
      type: 'verdict',
      evaluation: { passed: true, explanation: 'agent responded', score: 1, attributes: { length: '50' } },
    });
  });
});

describe('EvaluatorTestKit with the example ReplyLengthEvaluator (config())', () => {
  const stubLedger = TestLedgerClient.create().seed(
    sampleRecord('interaction-1', { finalResponseText: 'Shipped on Monday.' }),
  );

  it('reads min-length given as YAML text, like ConfigFactory.parseString("min-length = 20")', async () => {
    const testKit = EvaluatorTestKit.of(() => new ReplyLengthEvaluator(stubLedger)).withConfig('min-length: 20');
    const result = await testKit.evaluate(Subject.interaction('interaction-1', 'support-agent'));
    expect(result.isComplete()).toBe(true);
    expect(result.getEvaluation().passed).toBe(false);
    expect(result.getEvaluation().explanation).toBe('reply of 18 characters, minimum 20');
  });

  it('reads min-length given as a mapping', async () => {
    const result = await EvaluatorTestKit.of(() => new ReplyLengthEvaluator(stubLedger))
      .withConfig({ 'min-length': 10 })
      .evaluate(Subject.interaction('interaction-1', 'support-agent'));
    expect(result.getEvaluation().passed).toBe(true);
  });

  it('records a failed evaluation when min-length is missing: a missing key throws', async () => {
    const result = await EvaluatorTestKit.of(() => new ReplyLengthEvaluator(stubLedger)).evaluate(
      Subject.interaction('interaction-1', 'support-agent'),
    );
    expect(result.isFailed()).toBe(true);
    expect(result.getError()).toBeInstanceOf(MissingConfigPropertyError);
    expect(result.getFailureMessage()).toMatch(/config property "min-length" is not set/);
    expect(result.outcome).toMatchObject({ type: 'failed', errorType: 'MissingConfigPropertyError' });
  });

  it('records a failed evaluation when min-length is not an integer', async () => {
    const result = await EvaluatorTestKit.of(() => new ReplyLengthEvaluator(stubLedger))
      .withConfig({ 'min-length': 'twenty' })
      .evaluate(Subject.interaction('interaction-1', 'support-agent'));
    expect(result.getFailureMessage()).toMatch(/config property "min-length" must be an integer \(got "twenty"\)/);
  });
});

describe('the three outcomes', () => {
  const kit = (evaluate: (context: EvaluationContext) => unknown) =>
    EvaluatorTestKit.of(() => ({ evaluate }) as Evaluator);
  const subject = Subject.interaction('i-1', 'support-agent', 'flow-1');

  it('a thrown error is a failure, not an inconclusive result', async () => {
    const result = await kit(() => {
      throw new TypeError('boom');
    }).evaluate(subject);
    expect(result.isFailed()).toBe(true);
    expect(result.isInconclusive()).toBe(false);
    expect(result.outcome).toEqual({ type: 'failed', error: 'boom', errorType: 'TypeError' });
  });

  it('a rejected promise is a failure', async () => {
    const result = await kit(async () => Promise.reject(new Error('model unavailable'))).evaluate(subject);
    expect(result.getFailureMessage()).toBe('model unavailable');
  });

  it('a value that is not an effect is a failure that says what to return', async () => {
    const result = await kit(() => Evaluation.passed('forgot effects.complete')).evaluate(subject);
    expect(result.getFailureMessage()).toMatch(
      new RegExp(
        /evaluate returned an instance of Evaluation /.source +
          /\(return effects.complete\(evaluation\) or effects.inconclusive\(reason\)\)/.source,
      ),
    );
  });

  it('an evaluation that does not finish in time fails as timed out, and its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const result = await kit((context) => {
      signal = context.signal;
      return new Promise(() => {});
    })
      .withTimeout(30)
      .evaluate(subject);
    expect(result.getFailureMessage()).toMatch(/did not finish within 30 ms/);
    expect(result.outcome).toMatchObject({ errorType: 'TimeoutError' });
    expect(signal?.aborted).toBe(true);
  });

  it('gives the subject (with its flowId), the evaluation id and the config to evaluate', async () => {
    let seen: EvaluationContext | undefined;
    const result = await kit((context) => {
      seen = context;
      return effects().inconclusive('not applicable');
    })
      .withConfig({ tone: 'formal' })
      .evaluate(subject, { evaluationId: 'evaluation-9' });
    expect(result.getInconclusiveReason()).toBe('not applicable');
    expect(seen?.subject).toEqual({
      kind: 'interaction',
      interactionId: 'i-1',
      agentId: 'support-agent',
      flowId: 'flow-1',
    });
    expect(seen?.evaluationId).toBe('evaluation-9');
    expect(seen?.config().getString('tone')).toBe('formal');
  });

  it('makes a new evaluator instance for each evaluation', async () => {
    const instances: object[] = [];
    const definition = defineEvaluator({
      id: 'counting',
      create: () => {
        const instance = {
          seen: 0,
          evaluate() {
            this.seen++;
            return effects.complete(Evaluation.of(this.seen === 1, `seen ${this.seen}`));
          },
        };
        instances.push(instance);
        return instance;
      },
    });
    const testKit = EvaluatorTestKit.of(definition);
    const first = await testKit.evaluate(subject);
    const second = await testKit.evaluate(subject);
    expect(instances).toHaveLength(2);
    expect(first.getEvaluation().passed).toBe(true);
    expect(second.getEvaluation().passed).toBe(true);
  });
});
