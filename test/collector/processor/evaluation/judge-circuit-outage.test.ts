/**
 * A judge outage behind the circuit breaker, with the real defaults (5 failures open it, one probe
 * per cool-down of 5 s doubling to 5 min, runs again after 1 s doubling to 30 s): 200 `llm-judge`
 * evaluations queued while the model answers 529 for 60 s of the runtime's (fake) clock. The
 * scripted model, reached by the real Anthropic SDK, notes the fake time of every request: once the
 * circuit is open it gets about one request per cool-down, not one per waiting evaluation; after
 * the model recovers every evaluation is recorded exactly once and none failed. Real SQLite ledger.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { createLlmJudgeEvaluator } from '../../../../collector/evaluators/llm-judge.ts';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import type { QueuedEvaluation } from '../../../../collector/ledger/store.ts';
import { silentLogger } from '../../../../collector/logger.ts';
import { createEvaluationRuntime } from '../../../../collector/processor/evaluation/evaluation-runtime.ts';
import { createEvaluatorRegistry } from '../../../../collector/processor/evaluation/evaluator-registry.ts';
import type { EvaluationRecord } from '../../../../src/model/records.ts';
import { createScriptedModel, testInteractionRecord } from '../../../../src/testing/index.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createManualClock } from './helpers/manual-clock.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const EVALUATIONS = 200;
const OUTAGE_MS = 60_000;

it('sends about one request per cool-down while the circuit is open, then completes all 200 exactly once', async () => {
  const clock = createManualClock();
  const start = clock.now();
  const model = await createScriptedModel();
  /** The fake time of each request, and whether the model was down then. */
  const requests: Array<{ at: number; down: boolean }> = [];
  model.respondWith(() => {
    const at = clock.now();
    const down = at < start + OUTAGE_MS;
    requests.push({ at, down });
    return down
      ? { errorStatus: 529 }
      : {
          toolUse: [{ name: 'record_verdict', input: { passed: true, score: 1, explanation: 'answers it' } }],
          usage: { input_tokens: 10, output_tokens: 5 },
        };
  });
  const dir = mkdtempSync(join(tmpdir(), 'evalon-circuit-'));
  const store = createSqliteStore({ path: join(dir, 'ledger.db') });
  // The client's own retries stay (3), with short waits: they are not what is measured here.
  const judge = createLlmJudgeEvaluator({
    env: { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: 'circuit-test', EVALON_MODEL: 'claude-outage' },
    client: { retryBaseMs: 1, retryMaxMs: 2 },
  });
  const recorded: EvaluationRecord[] = [];
  const runtime = createEvaluationRuntime({
    store,
    registry: createEvaluatorRegistry([{ definition: judge, origin: 'test' }]),
    resolve: () => ({ config: { rubric: 'The reply answers the question.' } }),
    concurrency: 16,
    logger: silentLogger,
    onRecorded: (record) => recorded.push(record),
    shutdownGraceMs: 0,
    clock,
  });
  cleanups.push(async () => {
    await runtime.shutdown();
    await store.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const evaluations: QueuedEvaluation[] = [];
  for (let i = 0; i < EVALUATIONS; i++) {
    const record = testInteractionRecord({
      traceId: randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
    });
    const interactionId = `${record.traceId}-${record.spanId}`;
    await store.putInteractions([{ ...record, interactionId }]);
    evaluations.push({
      evaluationId: randomUUID(),
      interactionId,
      evaluatorId: 'llm-judge',
      evaluatorVersion: '1',
      agentId: 'support-agent',
      roles: [],
      triggeredAt: new Date(start).toISOString(),
      source: 'interaction',
      attempts: 0,
    });
  }
  await runtime.start();
  runtime.submit(await store.enqueueEvaluations(evaluations));

  // The first runs fail together, before any time passes: the circuit opens, and the calls in flight
  // settle (their retries are refused).
  await pollUntil(() => runtime.judgeCircuits().some(({ state }) => state === 1) || undefined, { timeoutMs: 20_000 });
  await pollUntil(() => runtime.stats.running === 0 || undefined, { timeoutMs: 20_000 });
  const openedAt = clock.now();
  // Then fake time moves in steps of 250 ms, each with a little real time for HTTP and the ledger.
  while (recorded.length < EVALUATIONS && clock.now() - start < 10 * 60_000) {
    await clock.advance(250);
    await sleep(3);
  }

  const before = requests.filter((request) => request.at <= openedAt);
  const whileOpen = requests.filter((request) => request.down && request.at > openedAt);
  // The burst before it opened: the first runs in flight and their retries, not one per queued evaluation.
  expect(before.length).toBeLessThan(EVALUATIONS / 4);
  // Then the probes, a cool-down apart (5, 10, 20, 40 s): about one request per cool-down.
  const coolDowns = Math.ceil(Math.log2((start + OUTAGE_MS - openedAt) / 5_000 + 1));
  expect(whileOpen.length).toBeGreaterThanOrEqual(1);
  expect(whileOpen.length).toBeLessThanOrEqual(coolDowns);
  for (let i = 1; i < whileOpen.length; i++)
    expect(whileOpen[i].at - whileOpen[i - 1].at).toBeGreaterThanOrEqual(5_000);

  // Every evaluation completed once, none failed, and the circuit is closed again.
  expect(recorded).toHaveLength(EVALUATIONS);
  expect(new Set(recorded.map((record) => record.evaluationId))).toEqual(
    new Set(evaluations.map((evaluation) => evaluation.evaluationId)),
  );
  expect(recorded.every((record) => record.outcome.type === 'verdict')).toBe(true);
  expect(runtime.judgeCircuits()).toEqual([{ model: 'claude-outage', state: 0 }]);
  expect(await store.countQueuedEvaluations()).toBe(0);
}, 120_000);
