/**
 * A step the evaluation timeout stops is never run again, even when the timer that stopped it
 * fires before the clock the deadline is read from shows it passed (timers and the wall clock
 * drift apart by a millisecond or more on a busy machine; here the clock runs at half speed).
 */
import { expect, it } from 'vitest';
import { DurableEvaluator, DurableSettings, Subject } from '../../../src/evaluation/index.ts';
import { runDurableEvaluation } from '../../../src/evaluation/durable-run.ts';
import type { EvaluationContext } from '../../../src/evaluation/evaluation-context.ts';
import { EvaluatorConfig } from '../../../src/evaluation/evaluator-config.ts';
import { TestLedgerClient, testInteractionRecord } from '../../../src/testing/index.ts';

it('does not retry a step stopped by the evaluation timeout, whatever the clock says', async () => {
  let judged = 0;
  class Slow extends DurableEvaluator {
    override settings() {
      return DurableSettings.defaults()
        .withEvaluationTimeout(100)
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
      judged++;
      return new Promise<never>(() => {});
    }
  }
  const record = testInteractionRecord();
  const start = Date.now();
  const result = await runDurableEvaluation({
    evaluator: new Slow(),
    evaluatorId: 'slow',
    startedAtMs: start,
    defaultTimeoutMs: 60_000,
    clock: () => start + (Date.now() - start) / 2,
    contextFor: (signal): EvaluationContext => ({
      subject: Subject.interaction(record.interactionId, record.agentId),
      evaluationId: 'e-1',
      evaluatorId: 'slow',
      config: () => new EvaluatorConfig({}, 'evaluator slow'),
      ledger: TestLedgerClient.create(),
      signal,
    }),
    save: async () => {},
  });
  expect(judged).toBe(1);
  expect(result).toMatchObject({ stopped: false, outcome: { type: 'failed', errorType: 'TimeoutError' } });
  const { outcome } = result as { outcome: { error: string } };
  expect(outcome.error).toMatch(/evaluation timeout, step "judge" while it ran\)$/);
});
