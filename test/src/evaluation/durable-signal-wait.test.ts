/**
 * `awaitSignal`: a durable step parks the evaluation until a named signal arrives or its timeout
 * passes. In the collector the run ends `parked` with the progress to keep and resumes from it
 * with the arrival; in memory (the test kit) the wait ends at once with the payload the test gave,
 * else as timed out. Waiting does not count against the evaluation timeout.
 */
import { describe, expect, it } from 'vitest';
import { runDurableEvaluation } from '../../../src/evaluation/durable-run.ts';
import {
  DurableEvaluator,
  DurableSettings,
  Evaluation,
  type EvaluationContext,
  type SignalArrival,
  Subject,
} from '../../../src/evaluation/index.ts';
import { EvaluatorTestKit } from '../../../src/testing/index.ts';

class Approval extends DurableEvaluator<{ asked: string }> {
  readonly wait: { signal?: string; timeout?: unknown };
  readonly ran: string[];
  constructor(wait: { signal?: string; timeout?: unknown } = {}, ran: string[] = []) {
    super();
    this.wait = wait;
    this.ran = ran;
  }
  override settings() {
    return DurableSettings.defaults().withEvaluationTimeout('1m');
  }
  override steps() {
    return { decide: this.decide };
  }
  onEvaluation(context: EvaluationContext) {
    this.ran.push('onEvaluation');
    return this.effects()
      .updateState({ asked: context.subject.interactionId })
      .awaitSignal(this.wait.signal ?? 'approval', {
        timeout: (this.wait.timeout ?? '2d') as string,
        resumeWith: this.decide,
      });
  }
  decide(arrival: SignalArrival) {
    this.ran.push(`decide:${arrival.status}`);
    if (arrival.status === 'timed-out') return this.effects().inconclusive(`no answer by ${arrival.deadline}`);
    const { approved } = arrival.payload as { approved: boolean };
    return this.effects().complete(Evaluation.of(approved, `${this.currentState().asked}: approved ${approved}`));
  }
}

const subject = Subject.interaction('interaction-1', 'support-agent');

describe('awaitSignal in memory (test kit)', () => {
  it('resumes at once with the payload the test gave the signal', async () => {
    const result = await EvaluatorTestKit.of(() => new Approval())
      .withSignal('approval', { approved: true })
      .evaluate(subject);
    expect(result.getEvaluation().passed).toBe(true);
    expect(result.getEvaluation().explanation).toBe('interaction-1: approved true');
  });

  it('times out at once when the test gave no payload', async () => {
    const result = await EvaluatorTestKit.of(() => new Approval()).evaluate(subject);
    expect(result.isInconclusive()).toBe(true);
  });

  it('fails the evaluation naming a bad signal name or timeout', async () => {
    const badName = await EvaluatorTestKit.of(() => new Approval({ signal: 'two words' })).evaluate(subject);
    expect(badName.isFailed()).toBe(true);
    expect(badName.getFailureMessage()).toMatch(/awaitSignal: "two words" is not a signal name/);
    const badTimeout = await EvaluatorTestKit.of(() => new Approval({ timeout: '400d' })).evaluate(subject);
    expect(badTimeout.getFailureMessage()).toMatch(/awaitSignal\("approval"\): timeout must be .* from 1ms to 366d/);
  });
});

describe('awaitSignal in the collector (parked, resumed)', () => {
  const context = (signal: AbortSignal): EvaluationContext => ({
    subject,
    evaluationId: 'e-1',
    evaluatorId: 'approval',
    config: () => {
      throw new Error('not read');
    },
    ledger: {} as EvaluationContext['ledger'],
    signal,
  });

  it('ends the run parked with the progress to keep, and resumes from it with what arrived', async () => {
    const ran: string[] = [];
    let now = Date.parse('2031-01-01T00:00:00.000Z');
    const base = {
      evaluatorId: 'approval',
      startedAtMs: now,
      defaultTimeoutMs: 60_000,
      contextFor: context,
      save: async () => {},
      clock: () => now,
    };
    const first = await runDurableEvaluation({ ...base, evaluator: new Approval({}, ran) });
    expect(first).toMatchObject({ stopped: false, completedSteps: 1 });
    const parked = first.stopped === false ? first.parked : undefined;
    expect(parked).toEqual({
      step: 'decide',
      state: { asked: 'interaction-1' },
      completedSteps: 1,
      firstStartedAt: '2031-01-01T00:00:00.000Z',
      awaiting: { signal: 'approval', since: '2031-01-01T00:00:00.000Z', deadline: '2031-01-03T00:00:00.000Z' },
    });
    // Without an arrival it stays parked, nothing run.
    const still = await runDurableEvaluation({ ...base, evaluator: new Approval({}, ran), progress: parked! });
    expect(still.stopped === false && still.parked).toEqual(parked);
    // A day later (far past the 1-minute evaluation timeout), the signal resumes it.
    now += 86_400_000;
    const resumed = await runDurableEvaluation({
      ...base,
      evaluator: new Approval({}, ran),
      progress: parked!,
      arrival: { signal: 'approval', status: 'received', payload: { approved: false }, receivedAt: 'x' },
    });
    expect(resumed.stopped === false && resumed.outcome).toEqual({
      type: 'verdict',
      evaluation: { passed: false, explanation: 'interaction-1: approved false', attributes: {} },
    });
    expect(ran).toEqual(['onEvaluation', 'decide:received']);
  });
});
