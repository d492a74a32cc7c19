/**
 * A judge's model going away and coming back: evaluations whose model calls fail with retryable
 * errors (529 overloaded, after the client's own retries) are not recorded as failed verdicts;
 * they wait with a backoff and run again, and when the model recovers every one of them completes,
 * exactly once. A permanent error (400) is still a failed record at once, and an outage longer than
 * `unavailableRetryForMs` ends in a failed record too. Real SDK against the scripted model, real
 * SQLite ledger, the built-in `llm-judge` (plain) and `criteria-judge` (durable); the backoffs
 * (the default, 1 s doubling) pass on a manual clock.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createCriteriaJudgeEvaluator } from '../../../../collector/evaluators/criteria-judge.ts';
import { createLlmJudgeEvaluator } from '../../../../collector/evaluators/llm-judge.ts';
import { createSqliteStore, type SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import type { QueuedEvaluation } from '../../../../collector/ledger/store.ts';
import { silentLogger } from '../../../../collector/logger.ts';
import {
  createEvaluationRuntime,
  type EvaluationRuntime,
} from '../../../../collector/processor/evaluation/evaluation-runtime.ts';
import { isModelUnavailable } from '../../../../collector/processor/evaluation/model-outage.ts';
import { createEvaluatorRegistry } from '../../../../collector/processor/evaluation/evaluator-registry.ts';
import type { EvaluationRecord } from '../../../../src/evaluation/index.ts';
import { ModelCallError } from '../../../../src/judge/anthropic-model-client.ts';
import { createScriptedModel, testInteractionRecord, type ScriptedModel } from '../../../../src/testing/index.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createManualClock, type ManualClock } from './helpers/manual-clock.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const CONFIG: Record<string, Record<string, unknown>> = {
  'llm-judge': { rubric: 'The reply answers the question.', pass_threshold: 0.5 },
  'criteria-judge': { criteria: ['The reply is polite', 'The reply is specific'] },
};

interface Setup {
  store: SqliteLedgerStore;
  runtime: EvaluationRuntime;
  model: ScriptedModel;
  recorded: EvaluationRecord[];
  interactionIds: string[];
  clock: ManualClock;
}

async function setUp(options: { interactions: number; unavailableRetryForMs?: number }): Promise<Setup> {
  const model = await createScriptedModel();
  const dir = mkdtempSync(join(tmpdir(), 'evalon-outage-'));
  const store = createSqliteStore({ path: join(dir, 'ledger.db') });
  // The client's own retries are few and short here, so the outage outlasts them at once.
  const judgeOptions = {
    env: { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: 'outage-test' },
    client: { maxRetries: 1, retryBaseMs: 1, retryMaxMs: 2 },
  };
  const registry = createEvaluatorRegistry(
    [createLlmJudgeEvaluator(judgeOptions), createCriteriaJudgeEvaluator(judgeOptions)].map((definition) => ({
      definition,
      origin: 'test',
    })),
  );
  const recorded: EvaluationRecord[] = [];
  const clock = createManualClock();
  const runtime = createEvaluationRuntime({
    store,
    registry,
    resolve: (evaluation) => ({ config: CONFIG[evaluation.evaluatorId] }),
    concurrency: 4,
    logger: silentLogger,
    onRecorded: (record) => recorded.push(record),
    shutdownGraceMs: 0,
    clock,
    ...(options.unavailableRetryForMs !== undefined ? { unavailableRetryForMs: options.unavailableRetryForMs } : {}),
  });
  cleanups.push(async () => {
    await runtime.shutdown();
    await store.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const interactionIds: string[] = [];
  for (let i = 0; i < options.interactions; i++) {
    const record = testInteractionRecord({
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
    });
    const interactionId = `${record.traceId}-${record.spanId}`;
    await store.putInteractions([{ ...record, interactionId }]);
    interactionIds.push(interactionId);
  }
  await runtime.start();
  return { store, runtime, model, recorded, interactionIds, clock };
}

async function queueBoth(setup: Setup): Promise<QueuedEvaluation[]> {
  const evaluations = setup.interactionIds.flatMap((interactionId) =>
    ['llm-judge', 'criteria-judge'].map(
      (evaluatorId): QueuedEvaluation => ({
        evaluationId: randomUUID(),
        interactionId,
        evaluatorId,
        evaluatorVersion: '1',
        agentId: 'support-agent',
        roles: [],
        triggeredAt: new Date().toISOString(),
        source: 'interaction',
        attempts: 0,
      }),
    ),
  );
  const queued = await setup.store.enqueueEvaluations(evaluations);
  setup.runtime.submit(queued);
  return queued;
}

/** A verdict in the judge's expected shape, for the rubric judge or a criterion. */
function verdict(system: string) {
  return system.includes('## Rubric')
    ? {
        toolUse: [{ name: 'record_verdict', input: { passed: true, score: 0.9, explanation: 'answers it' } }],
        usage: { input_tokens: 10, output_tokens: 5 },
      }
    : {
        toolUse: [{ name: 'record_verdict', input: { passed: true, reasoning: 'it is' } }],
        usage: { input_tokens: 10, output_tokens: 5 },
      };
}

it('tells an outage (a retryable model error in the cause chain) from other failures', () => {
  const overloaded = new ModelCallError('overloaded', { status: 529, attempts: 2, retryable: true });
  const badRequest = new ModelCallError('bad request', { status: 400, attempts: 1, retryable: false });
  expect(isModelUnavailable(overloaded)).toBe(true);
  expect(
    isModelUnavailable(new Error('judge failed', { cause: new Error('step failed', { cause: overloaded }) })),
  ).toBe(true);
  expect(isModelUnavailable(badRequest)).toBe(false);
  expect(isModelUnavailable(new Error('unreadable reply'))).toBe(false);
  expect(isModelUnavailable('overloaded')).toBe(false);
});

it('waits out a 529 outage and completes every evaluation ' +
  'once the model recovers, none failed, none twice', async () => {
  const setup = await setUp({ interactions: 6 });
  let outage = true;
  setup.model.respondWith((request) => (outage ? { errorStatus: 529 } : verdict(String(request.body.system))));
  const queued = await queueBoth(setup);
  // Every evaluation has met the outage and is waiting (not recorded).
  await pollUntil(() => setup.runtime.stats.deferred === queued.length || undefined, { timeoutMs: 20_000 });
  const duringOutage = setup.model.requests.length;
  expect(setup.recorded).toEqual([]);
  // Still waiting a little later: they back off and run again, and nothing is recorded. The judge
  // model's circuit opened after 5 failures, so the runs again are refused without a request.
  const started = setup.runtime.stats.started;
  await setup.clock.advance(1_000);
  await pollUntil(
    () =>
      (setup.runtime.stats.started >= started + queued.length && setup.runtime.stats.deferred === queued.length) ||
      undefined,
    { timeoutMs: 20_000 },
  );
  expect(setup.model.requests).toHaveLength(duringOutage);
  expect(setup.runtime.stats.judgeCircuits).toEqual([
    { baseURL: setup.model.baseURL, model: 'claude-sonnet-4-6', state: 'open' },
  ]);
  expect(setup.recorded).toEqual([]);
  outage = false;
  await setup.clock.advanceUntil(setup.runtime.idle());
  expect(setup.recorded).toHaveLength(queued.length);
  expect(setup.recorded.every((record) => record.outcome.type === 'verdict' && record.outcome.evaluation.passed)).toBe(
    true,
  );
  expect(new Set(setup.recorded.map((record) => record.evaluationId))).toEqual(
    new Set(queued.map((q) => q.evaluationId)),
  );
  for (const interactionId of setup.interactionIds)
    expect(await setup.store.getEvaluations(interactionId)).toHaveLength(2);
  expect(await setup.store.countQueuedEvaluations()).toBe(0);
  // A retry of an outage is not a new attempt: each record says one attempt.
  expect(setup.recorded.map((record) => record.attempts)).toEqual(queued.map(() => 1));
  expect(setup.runtime.stats.deferred).toBe(0);
}, 60_000);

it('records a permanent model error (400) as failed at once, without waiting', async () => {
  const setup = await setUp({ interactions: 1 });
  setup.model.fixedResponse({ errorStatus: 400 });
  const queued = await queueBoth(setup);
  await setup.runtime.idle();
  expect(setup.recorded).toHaveLength(queued.length);
  for (const record of setup.recorded) {
    expect(record.outcome).toMatchObject({ type: 'failed', error: expect.stringMatching(/400|invalid/i) });
  }
  // One call each: a 400 is neither retried by the client nor waited out by the runtime.
  expect(setup.model.requests).toHaveLength(queued.length);
});

it('records an evaluation as failed when the outage outlasts unavailableRetryForMs', async () => {
  const setup = await setUp({ interactions: 1, unavailableRetryForMs: 150 });
  setup.model.fixedResponse({ errorStatus: 529 });
  const queued = await queueBoth(setup);
  await setup.clock.advanceUntil(setup.runtime.idle());
  expect(setup.recorded).toHaveLength(queued.length);
  for (const record of setup.recorded)
    expect(record.outcome).toMatchObject({ type: 'failed', error: expect.stringMatching(/529|overloaded/i) });
  // It was run more than once before giving up (two client calls per run).
  expect(setup.model.requests.length).toBeGreaterThan(queued.length * 2);
}, 30_000);
