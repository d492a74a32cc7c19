/**
 * The evaluation runtime over a real SQLite ledger: the right evaluators for the right agents,
 * trigger rules, loop safety, concurrency, the three outcomes, and read-only records. Taking
 * interactions in under memory and event-loop pressure: evaluation-processor-intake.test.ts;
 * exactly once across restarts: evaluation-processor-restarts.test.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { defineEvaluator, effects, Evaluation } from '../../../../src/evaluation/index.ts';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import { createLogger } from '../../../../collector/logger.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { interaction, processorHarnesses, QUALITY_AND_LENGTH_BINDINGS } from './helpers/processor-harness.ts';
import { recordingEvaluator, type Seen } from './helpers/test-evaluators.ts';

const harness = processorHarnesses();

describe('evaluation processor', () => {
  it('runs the bound evaluators for the right agents and records one outcome each', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: QUALITY_AND_LENGTH_BINDINGS,
      evaluators: [recordingEvaluator('quality', seen), recordingEvaluator('length', seen, { version: '3' })],
    });
    const support = interaction('support-agent');
    const billing = interaction('billing-agent', { roles: ['customer-facing'] });
    const shop = interaction('shop-agent', { roles: ['customer-facing'] });
    const ops = interaction('ops-agent');
    await h.record([support, billing, shop, ops]);
    await h.processor.idle();

    const ids = async (record: InteractionRecord) =>
      (await h.store.getEvaluations(record.interactionId)).map((e) => `${e.evaluatorId}@${e.evaluatorVersion}`).sort();
    expect(await ids(support)).toEqual(['length@3', 'quality@1']);
    expect(await ids(billing)).toEqual(['length@3']); // quality's agent entry for billing-agent is disabled
    expect(await ids(shop)).toEqual(['quality@1']);
    expect(await ids(ops)).toEqual([]);

    const [record] = (await h.store.getEvaluations(support.interactionId)).filter((e) => e.evaluatorId === 'quality');
    expect(record).toMatchObject({
      interactionId: support.interactionId,
      agentId: 'support-agent',
      controlId: 'QA-1',
      attempts: 1,
      outcome: {
        type: 'verdict',
        evaluation: { passed: true, explanation: 'quality saw support-agent', score: 0.5, attributes: {} },
      },
    });
    expect(Date.parse(record.triggeredAt)).toBeLessThanOrEqual(Date.parse(record.startedAt));
    expect(Date.parse(record.startedAt)).toBeLessThanOrEqual(Date.parse(record.completedAt));
    expect(record.evaluationId).toBe(
      seen.find((s) => s.evaluatorId === 'quality' && s.interactionId === support.interactionId)?.evaluationId,
    );
    expect(await h.store.countQueuedEvaluations()).toBe(0);
    expect(h.processor.stats).toMatchObject({
      triggered: 4,
      recorded: 4,
      passed: 4,
      failed: 0,
      running: 0,
      waiting: 0,
    });
  });

  it('gives config() the binding used over the entry, key by key (min-length 50 for billing-agent)', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: QUALITY_AND_LENGTH_BINDINGS,
      evaluators: [recordingEvaluator('quality', seen), recordingEvaluator('length', seen)],
    });
    await h.record([interaction('support-agent'), interaction('billing-agent')]);
    await h.processor.idle();
    const configOf = (agentId: string) => seen.find((s) => s.evaluatorId === 'length' && s.agentId === agentId)?.config;
    expect(configOf('support-agent')).toEqual({ 'min-length': 20, trigger: 'interaction' });
    expect(configOf('billing-agent')).toEqual({ 'min-length': 50, trigger: 'interaction' });
  });

  it(
    'never evaluates an interaction inside an evaluation, ' + 'nor one nested in it, whatever the bindings say',
    async () => {
      const seen: Seen[] = [];
      const h = await harness({
        yaml: `
evaluators:
  quality:
    agent-roles:
      "*": { trigger: interaction }
`,
        evaluators: [recordingEvaluator('quality', seen)],
      });
      const judge = interaction('quality-judge', {
        roles: ['judge'],
        attributes: { 'evalon.evaluation.id': 'evaluation-1' },
      });
      const nested = interaction('helper-agent', { roles: ['judge'], flowId: judge.interactionId });
      const normal = interaction('support-agent', { roles: ['customer-facing'] });
      await h.record([judge]);
      await h.record([nested, normal]);
      await h.processor.idle();
      expect(seen.map((s) => s.agentId)).toEqual(['support-agent']);
      expect(h.processor.stats.insideEvaluation).toBe(2);
    },
  );

  it('evaluates failed interactions only for bindings with trigger-on-failure', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: `
evaluators:
  plain:
    agents:
      support-agent: {}
  on-failure:
    agents:
      support-agent: { trigger-on-failure: true }
`,
      evaluators: [recordingEvaluator('plain', seen), recordingEvaluator('on-failure', seen)],
    });
    await h.record([interaction('support-agent', { failed: true, failureSummary: 'guardrail blocked the reply' })]);
    await h.processor.idle();
    expect(seen.map((s) => s.evaluatorId)).toEqual(['on-failure']);
    expect(h.processor.stats.failedNotTriggered).toBe(1);
  });

  it('samples deterministically from the trace id: the same interactions at the same ratio', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: `
evaluators:
  sampled:
    agents:
      support-agent: { sampling-ratio: 0.3 }
`,
      evaluators: [recordingEvaluator('sampled', seen)],
    });
    const records = Array.from({ length: 400 }, () => interaction('support-agent'));
    await h.record(records);
    await h.processor.idle();
    const share = seen.length / records.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.4);
    const { isSampled } = await import('../../../../collector/processor/evaluation/sampling.ts');
    expect(new Set(seen.map((s) => s.interactionId))).toEqual(
      new Set(records.filter((r) => isSampled(r.traceId, 0.3)).map((r) => r.interactionId)),
    );
    expect(h.processor.stats.notSampled).toBe(records.length - seen.length);
  });

  it('runs at most `concurrency` evaluations at once, and ingest does not wait for them', async () => {
    let running = 0;
    let most = 0;
    let finished = 0;
    // Evaluations stay blocked until the test opens the gate: ingest must be done before any ends.
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const slow = defineEvaluator({
      id: 'slow',
      create: () => ({
        async evaluate() {
          running++;
          most = Math.max(most, running);
          await gate;
          await sleep(5);
          running--;
          finished++;
          return effects.complete(Evaluation.passed('slow'));
        },
      }),
    });
    const h = await harness({
      yaml: `concurrency: 3\nevaluators:\n  slow:\n    agents:\n      support-agent: {}\n`,
      evaluators: [slow],
    });
    const records = Array.from({ length: 12 }, () => interaction('support-agent'));
    await h.record(records);
    // Ingest returned while every evaluation is still blocked: it does not wait for them.
    expect(finished).toBe(0);
    await pollUntil(async () => ((await h.store.countQueuedEvaluations()) > 0 ? true : undefined), {
      what: 'queued evaluations',
    });
    openGate();
    await h.processor.idle();
    expect(most).toBe(3);
    expect(h.processor.stats.recorded).toBe(12);
  });

  it(
    'records a throw as failed and a missing property ' + 'as failed, per evaluation, without stopping others',
    async () => {
      const lines: string[] = [];
      const throwing = defineEvaluator({
        id: 'throwing',
        create: () => ({
          evaluate: () => {
            throw new RangeError('judge said no');
          },
        }),
      });
      const needsProperty = defineEvaluator({
        id: 'needs-property',
        create: () => ({
          evaluate: (c) => effects.complete(Evaluation.passed(`min ${c.config().getInt('min-length')}`)),
        }),
      });
      const h = await harness({
        yaml: `
evaluators:
  throwing: { agents: { support-agent: {} } }
  needs-property: { agents: { support-agent: {} } }
`,
        evaluators: [throwing, needsProperty],
        logger: createLogger({ write: (line) => lines.push(line) }),
      });
      const record = interaction('support-agent');
      await h.record([record]);
      await h.processor.idle();
      const outcomes = Object.fromEntries(
        (await h.store.getEvaluations(record.interactionId)).map((e) => [e.evaluatorId, e.outcome]),
      );
      expect(outcomes).toEqual({
        throwing: { type: 'failed', error: 'judge said no', errorType: 'RangeError' },
        'needs-property': {
          type: 'failed',
          error: expect.stringMatching(/config property "min-length" is not set/),
          errorType: 'MissingConfigPropertyError',
        },
      });
      expect(lines.join('\n')).toMatch(/warn .*evaluation .* failed: judge said no/);
    },
  );

  it('records each key once when the same interactions are handed over twice', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: QUALITY_AND_LENGTH_BINDINGS,
      evaluators: [recordingEvaluator('quality', seen), recordingEvaluator('length', seen)],
    });
    const record = interaction('support-agent');
    await h.record([record]);
    await h.processor.consumeInteractions([record]);
    await h.processor.idle();
    expect((await h.store.getEvaluations(record.interactionId)).length).toBe(2);
  });
});

describe('evaluation processor isolation', () => {
  it('hands evaluators read-only records: one that changes the record fails, the next reads it unchanged', async () => {
    const seen: string[] = [];
    const vandal = defineEvaluator({
      id: 'vandal',
      create: ({ ledger }) => ({
        async evaluate(context) {
          const record = await ledger.getInteraction(context.subject.interactionId);
          (record as { finalResponseText: string }).finalResponseText = 'changed';
          return effects.complete(Evaluation.passed('changed it'));
        },
      }),
    });
    const reader = defineEvaluator({
      id: 'reader',
      create: ({ ledger }) => ({
        async evaluate(context) {
          seen.push((await ledger.getInteraction(context.subject.interactionId)).finalResponseText);
          return effects.complete(Evaluation.passed('read it'));
        },
      }),
    });
    const h = await harness({
      yaml:
        `concurrency: 1\nevaluators:\n  vandal: { agents: { support-agent: {} } }\n  reader: { agents: { ` +
        `support-agent: {} } }\n`,
      evaluators: [vandal, reader],
    });
    const record = interaction('support-agent', { finalResponseText: 'original' });
    await h.record([record]);
    await h.processor.idle();
    const outcomes = Object.fromEntries(
      (await h.store.getEvaluations(record.interactionId)).map((e) => [e.evaluatorId, e.outcome.type]),
    );
    expect(outcomes).toEqual({ vandal: 'failed', reader: 'verdict' });
    expect(seen).toEqual(['original']);
  });
});
