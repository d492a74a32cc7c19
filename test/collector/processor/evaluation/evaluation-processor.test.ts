/**
 * The evaluation runtime over a real SQLite ledger: the right evaluators for the right agents,
 * trigger rules, loop safety, concurrency, the three outcomes, and exactly once across restarts.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { defineEvaluator, effects, Evaluation } from '../../../../src/evaluation/index.ts';
import { testInteractionRecord } from '../../../../src/testing/index.ts';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import { createLogger } from '../../../../collector/logger.ts';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../../../../collector/processor/evaluation/runtime-shutdown.ts';
import { startProcessorHarness, type ProcessorHarness } from './helpers/processor-harness.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createManualClock } from './helpers/manual-clock.ts';
import { recordingEvaluator, type Seen } from './helpers/test-evaluators.ts';

const harnesses: ProcessorHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

async function harness(options: Parameters<typeof startProcessorHarness>[0]): Promise<ProcessorHarness> {
  const started = await startProcessorHarness(options);
  harnesses.push(started);
  return started;
}

function interaction(agentId: string, overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  const traceId = overrides.traceId ?? randomBytes(16).toString('hex');
  const spanId = overrides.spanId ?? randomBytes(8).toString('hex');
  return testInteractionRecord({
    agentId,
    traceId,
    spanId,
    interactionId: `${traceId}-${spanId}`,
    endTime: new Date().toISOString(),
    ...overrides,
  });
}

const SEED_CONFIG = `
concurrency: 4
evaluators:
  quality:
    control-id: QA-1
    agents:
      support-agent: { trigger: interaction }
      billing-agent: { trigger: interaction, enabled: false }
    agent-roles:
      customer-facing: { trigger: interaction }
  length:
    min-length: 20
    agents:
      support-agent: { trigger: interaction }
      billing-agent: { trigger: interaction, min-length: 50 }
`;

describe('evaluation processor', () => {
  it('runs the bound evaluators for the right agents and records one outcome each', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: SEED_CONFIG,
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
      yaml: SEED_CONFIG,
      evaluators: [recordingEvaluator('quality', seen), recordingEvaluator('length', seen)],
    });
    await h.record([interaction('support-agent'), interaction('billing-agent')]);
    await h.processor.idle();
    const configOf = (agentId: string) => seen.find((s) => s.evaluatorId === 'length' && s.agentId === agentId)?.config;
    expect(configOf('support-agent')).toEqual({ 'min-length': 20, trigger: 'interaction' });
    expect(configOf('billing-agent')).toEqual({ 'min-length': 50, trigger: 'interaction' });
  });

  it('never evaluates an interaction inside an evaluation, nor one nested in it, whatever the bindings say', async () => {
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
  });

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

  it('records a throw as failed and a missing property as failed, per evaluation, without stopping others', async () => {
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
  });

  it('records each key once when the same interactions are handed over twice', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: SEED_CONFIG,
      evaluators: [recordingEvaluator('quality', seen), recordingEvaluator('length', seen)],
    });
    const record = interaction('support-agent');
    await h.record([record]);
    await h.processor.consumeInteractions([record]);
    await h.processor.idle();
    expect((await h.store.getEvaluations(record.interactionId)).length).toBe(2);
  });

  it('keeps memory bounded: beyond maxInMemory, queued evaluations are read back from the ledger, each run once', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: `concurrency: 2\nevaluators:\n  e:\n    agents:\n      support-agent: {}\n`,
      evaluators: [recordingEvaluator('e', seen, { delayMs: 1 })],
      processor: { maxInMemory: 5 },
    });
    const records = Array.from({ length: 60 }, () => interaction('support-agent'));
    for (let i = 0; i < records.length; i += 10) await h.record(records.slice(i, i + 10));
    await h.processor.idle();
    expect(seen.map((s) => s.interactionId).sort()).toEqual(records.map((r) => r.interactionId).sort());
    expect(h.processor.stats.overflow).toBe(false);
    expect(await h.store.countQueuedEvaluations()).toBe(0);
  });

  it('takes in from the ledger a backlog of interactions larger than it holds in memory, each once', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: `evaluators:\n  e:\n    agents:\n      support-agent: {}\n`,
      evaluators: [recordingEvaluator('e', seen)],
      processor: { maxPendingIntake: 15 },
    });
    const batches = Array.from({ length: 8 }, () => Array.from({ length: 10 }, () => interaction('support-agent')));
    for (const batch of batches) await h.store.putInteractions(batch);
    // Handed over without waiting, as fast as the interactions processor could: most overflow.
    for (const batch of batches) await h.processor.consumeInteractions(batch);
    await h.processor.idle();
    expect(seen.map((s) => s.interactionId).sort()).toEqual(
      batches
        .flat()
        .map((r) => r.interactionId)
        .sort(),
    );
    expect(await h.store.loadInteractionsAwaitingIntake(10)).toEqual([]);
  });
});

describe('evaluation processor under a saturated event loop', () => {
  it('lets the triggers of new interactions wait in the ledger while the loop stays saturated, then takes each in once', async () => {
    const seen: Seen[] = [];
    let budget = 200;
    const governor = { tryStart: () => budget > 40, onWindow() {}, budget: () => budget, stop() {} };
    const clock = createManualClock();
    const h = await harness({
      yaml: `evaluators:\n  e:\n    agents:\n      support-agent: {}\n`,
      evaluators: [recordingEvaluator('e', seen)],
      processor: { governor, clock },
    });
    // One busy window (the budget halved once, still high) does not hold intake back.
    const busy = Array.from({ length: 5 }, () => interaction('support-agent'));
    await h.record(busy);
    await h.processor.idle();
    expect(h.processor.stats).toMatchObject({ intakeDeferred: 0, triggered: 5, recorded: 5 });
    // Saturated window after window (the budget at its floor): intake waits.
    budget = 10;
    const batches = Array.from({ length: 3 }, () => Array.from({ length: 5 }, () => interaction('support-agent')));
    for (const batch of batches) await h.record(batch);
    expect(await h.store.countQueuedEvaluations()).toBe(0);
    expect(h.processor.stats.intakeDeferred).toBe(3);
    expect(await h.store.loadInteractionsAwaitingIntake(100)).toHaveLength(15);
    budget = Number.POSITIVE_INFINITY;
    // Intake resumes at its next check of the loop's room.
    await clock.advanceUntil(h.processor.idle());
    expect(seen.map((s) => s.interactionId).sort()).toEqual(
      [...busy, ...batches.flat()].map((r) => r.interactionId).sort(),
    );
    expect(await h.store.loadInteractionsAwaitingIntake(100)).toEqual([]);
    expect(h.processor.stats).toMatchObject({ triggered: 20, recorded: 20 });
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
      yaml: `concurrency: 1\nevaluators:\n  vandal: { agents: { support-agent: {} } }\n  reader: { agents: { support-agent: {} } }\n`,
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

describe('evaluation processor across restarts', () => {
  it('stops within its grace period with evaluations still queued, and runs each of them once after the restart', async () => {
    let release = false;
    const ran: string[] = [];
    const stubborn = defineEvaluator({
      id: 'stubborn',
      create: () => ({
        async evaluate(context) {
          ran.push(context.evaluationId);
          while (!release && !context.signal.aborted) await sleep(5);
          return effects.complete(Evaluation.passed('done'));
        },
      }),
    });
    // The default grace period, on a manual clock.
    const clock = createManualClock();
    const h = await harness({
      yaml: `concurrency: 1\nevaluators:\n  stubborn:\n    agents:\n      support-agent: {}\n`,
      evaluators: [stubborn],
      processor: { clock },
    });
    const records = Array.from({ length: 20 }, () => interaction('support-agent'));
    await h.record(records);
    await pollUntil(() => (ran.length > 0 ? true : undefined), { what: 'the first evaluation to start' });
    const t0 = performance.now();
    let stopped = false;
    const stopping = h.processor.shutdown().then(() => (stopped = true));
    // The running evaluation is stuck: shutdown waits out the grace period, then stops it.
    await clock.whenTimeout(DEFAULT_SHUTDOWN_GRACE_MS);
    await clock.advance(DEFAULT_SHUTDOWN_GRACE_MS - 1);
    expect(stopped).toBe(false);
    await clock.advance(1);
    await stopping;
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(await h.store.countQueuedEvaluations()).toBe(20);
    release = true;
    await h.restart();
    await h.processor.idle();
    const recorded = await Promise.all(records.map((r) => h.store.getEvaluations(r.interactionId)));
    expect(recorded.map((list) => list.length)).toEqual(records.map(() => 1));
  });

  it('runs after a restart the evaluations left queued, and records them once', async () => {
    let blocking = true;
    const attemptsSeen: string[] = [];
    const gated = defineEvaluator({
      id: 'gated',
      create: () => ({
        async evaluate(context) {
          attemptsSeen.push(context.evaluationId);
          if (blocking) await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
          return effects.complete(Evaluation.passed('done'));
        },
      }),
    });
    const clock = createManualClock();
    const h = await harness({
      yaml: `evaluators:\n  gated:\n    agents:\n      support-agent: {}\n`,
      evaluators: [gated],
      processor: { shutdownGraceMs: 20, clock },
    });
    const records = [interaction('support-agent'), interaction('support-agent')];
    await h.record(records);
    while (attemptsSeen.length < 2) await sleep(5);
    blocking = false;
    // Both are blocked: the shutdown before the restart stops them once its grace period has passed.
    const restarting = h.restart();
    await clock.passTimeout(20);
    await restarting;
    await h.processor.idle();
    for (const record of records) {
      const evaluations = await h.store.getEvaluations(record.interactionId);
      expect(evaluations).toHaveLength(1);
      expect(evaluations[0].attempts).toBe(2);
      expect(evaluations[0].outcome.type).toBe('verdict');
    }
    // The same evaluation (same id) ran twice: once stopped by the shutdown, once to the end.
    expect(attemptsSeen).toHaveLength(4);
    expect(new Set(attemptsSeen).size).toBe(2);
  });

  it('records as failed, without running it again, an evaluation whose attempts all died with the collector', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: `evaluators:\n  e:\n    control-id: QA-9\n    agents:\n      support-agent: {}\n`,
      evaluators: [recordingEvaluator('e', seen)],
    });
    const record = interaction('support-agent');
    await h.store.putInteractions([record]);
    const [queued] = await h.store.enqueueEvaluations(
      [
        {
          evaluationId: 'poison',
          interactionId: record.interactionId,
          evaluatorId: 'e',
          evaluatorVersion: '1',
          agentId: 'support-agent',
          roles: [],
          triggeredAt: new Date().toISOString(),
          source: 'interaction',
          attempts: 0,
        },
      ],
      { intake: [record.interactionId] },
    );
    for (let i = 0; i < 3; i++)
      await h.store.startEvaluations([{ seq: queued.seq!, startedAt: new Date().toISOString() }]);
    await h.restart();
    await h.processor.idle();
    expect(seen).toEqual([]);
    expect(await h.store.getEvaluations(record.interactionId)).toMatchObject([
      {
        evaluationId: 'poison',
        controlId: 'QA-9',
        attempts: 3,
        outcome: {
          type: 'failed',
          errorType: 'EvaluationAbandonedError',
          error: expect.stringMatching(/3 attempts started and none finished/),
        },
      },
    ]);
  });

  it('takes in, at start, interactions recorded before their evaluations were queued', async () => {
    const seen: Seen[] = [];
    const h = await harness({
      yaml: SEED_CONFIG,
      evaluators: [recordingEvaluator('quality', seen), recordingEvaluator('length', seen)],
    });
    const records = [
      interaction('support-agent'),
      interaction('ops-agent'),
      interaction('shop-agent', { roles: ['customer-facing'] }),
    ];
    // The collector died between recording the interactions and queuing their evaluations.
    await h.store.putInteractions(records);
    await h.restart();
    await h.processor.idle();
    expect(seen.map((s) => `${s.evaluatorId}:${s.agentId}`).sort()).toEqual([
      'length:support-agent',
      'quality:shop-agent',
      'quality:support-agent',
    ]);
    expect(await h.store.loadInteractionsAwaitingIntake(10)).toEqual([]);
    await h.restart();
    await h.processor.idle();
    expect(seen).toHaveLength(3);
  });
});
