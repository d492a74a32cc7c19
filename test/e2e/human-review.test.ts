/**
 * Human review end to end, through real clients: spans from the official OTLP exporter; a
 * `criteria-judge` on the scripted model fails the answers that say "wrong"; `human-review` routed
 * on `fail` queues exactly those; the collector is killed with SIGKILL and restarted, and the queue
 * is still there; reviewers claim and submit through the API (a claim held by another, a bad body,
 * an unknown id, a second submission, two submissions at once: one 200 and one 409 each time); the
 * human verdict is recorded and exported as a verdict event of evaluator type `human` carrying its
 * reviewer.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ReviewRecord } from '../../collector/ledger/review-store.ts';
import type { EvaluationRecord } from '../../src/model/records.ts';
import { createScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model.ts';
import { spawnCollector, type CollectorProcess } from '../helpers/collector-process.ts';
import { startOtlpCapture, type OtlpCapture } from '../helpers/otlp-capture.ts';
import { pollUntil } from '../helpers/poll.ts';
import { judgeReply, ROUTED_REVIEW_EVALUATORS, runSupportAgent } from '../helpers/review-scenario.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-human-review-'));
const processes: CollectorProcess[] = [];
let scripted: ScriptedModel;
let capture: OtlpCapture;

beforeAll(async () => {
  scripted = await createScriptedModel();
  scripted.respondWith(judgeReply);
  capture = await startOtlpCapture();
});
afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await scripted?.close();
  await capture?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(configFile: string): Promise<CollectorProcess> {
  const started = await spawnCollector(configFile, {
    env: { ANTHROPIC_BASE_URL: scripted.baseURL, ANTHROPIC_API_KEY: 'review-key', EVALON_MODEL: 'claude-review' },
  });
  processes.push(started);
  return started;
}

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as never });

it('queues failed verdicts for review, keeps them across kill -9, and records reviewers’ verdicts once', async () => {
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(
    configFile,
    `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: { settle: 150ms, decision_wait: 3s }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
${ROUTED_REVIEW_EVALUATORS}
exporters:
  otlphttp: { endpoint: ${capture.url} }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation], exporters: [otlphttp] }
    logs: { exporters: [otlphttp] }
`,
  );
  const first = await start(configFile);
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: first.otlpUrl }) })],
  });
  const tracer = provider.getTracer('human-review-e2e');
  const right = runSupportAgent(tracer, 'Where is order A-17?', 'It shipped today.');
  const wrong = [
    runSupportAgent(tracer, 'Where is order A-17?', 'It is wrong to ask.'),
    runSupportAgent(tracer, 'Can I get a refund?', 'Refunds are wrong.'),
  ];
  await provider.forceFlush();
  await provider.shutdown();

  const list = async (api: string, status = 'open') =>
    (await json(await fetch(`${api}/api/v1/reviews?status=${status}`))).body as { reviews: ReviewRecord[] };
  const queued = await pollUntil(
    async () => {
      const { reviews } = await list(first.apiUrl);
      return reviews.length === 2 && reviews.every((r) => r.dueAt) ? reviews : undefined;
    },
    { timeoutMs: 30_000, what: 'two parked reviews' },
  );
  expect(queued.map((r) => r.interactionId).sort()).toEqual([...wrong].sort());
  expect(queued.map((r) => r.interactionId)).not.toContain(right);

  first.child.kill('SIGKILL');
  await first.exited;
  const second = await start(configFile);
  const api = second.apiUrl;
  const kept = await list(api);
  expect(kept.reviews.map((r) => r.reviewId).sort()).toEqual(queued.map((r) => r.reviewId).sort());

  const [a, b] = kept.reviews as [ReviewRecord, ReviewRecord];
  const detail = (await json(await fetch(`${api}/api/v1/reviews/${a.reviewId}`))).body as {
    review: ReviewRecord;
    interaction: { transcript: Array<{ type: string; name?: string; arguments?: unknown; result?: unknown }> };
  };
  expect(detail.review.reason).toMatchObject({ kind: 'routed', after: 'criteria-judge', outcome: 'fail' });
  expect(detail.review.routedVerdict?.outcome).toMatchObject({ type: 'verdict', evaluation: { passed: false } });
  expect(detail.interaction.transcript.find((e) => e.type === 'tool_call')).toMatchObject({
    name: 'lookup_order',
    arguments: { order: 'A-17' },
    result: { status: 'shipped <b>today</b>' },
  });

  const post = (path: string, body: unknown) =>
    fetch(`${api}/api/v1/reviews/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(json);
  expect((await post(`${a.reviewId}/claim`, { reviewer: 'ana' })).status).toBe(200);
  const taken = await post(`${a.reviewId}/claim`, { reviewer: 'bo' });
  expect(taken.status).toBe(409);
  expect(taken.body).toMatchObject({ claimedBy: 'ana', error: expect.stringMatching(/claimed by ana until /) });
  const verdict = { passed: false, score: 0.1, label: 'wrong', explanation: 'the answer is wrong', reviewer: 'ana' };
  expect(await post(a.reviewId, { ...verdict, passed: 'no' })).toEqual({
    status: 400,
    body: { error: 'passed must be true or false', field: 'passed' },
  });
  expect((await post('no-such-review', verdict)).status).toBe(404);
  expect((await post(a.reviewId, { ...verdict, reviewer: 'bo' })).status).toBe(409);

  const recorded = await post(a.reviewId, verdict);
  expect(recorded.status).toBe(200);
  const record = recorded.body as EvaluationRecord;
  expect(record).toMatchObject({
    evaluationId: a.reviewId,
    interactionId: a.interactionId,
    evaluatorId: 'human-review',
    outcome: {
      type: 'verdict',
      evaluation: { passed: false, score: 0.1, label: 'wrong', attributes: { 'evalon.reviewer': 'ana' } },
    },
    provenance: { evaluatorType: 'human', reviewer: 'ana' },
  });
  const again = await post(a.reviewId, { ...verdict, passed: true });
  expect(again.status).toBe(409);
  expect((again.body as { record: EvaluationRecord }).record).toEqual(record);

  const both = await Promise.all([
    post(b.reviewId, { ...verdict, reviewer: 'bo', passed: true }),
    post(b.reviewId, { ...verdict, reviewer: 'cy' }),
  ]);
  expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
  const winner = both.find((r) => r.status === 200)!.body as EvaluationRecord;
  expect((both.find((r) => r.status === 409)!.body as { record: EvaluationRecord }).record).toEqual(winner);

  expect((await list(api, 'done')).reviews.map((r) => r.reviewId).sort()).toEqual([a.reviewId, b.reviewId].sort());
  expect((await list(api)).reviews).toEqual([]);
  const event = await pollUntil(
    () =>
      capture.logs.find(
        (log) =>
          log.attributes['gen_ai.evaluation.name'] === 'human-review' && log.attributes['evalon.reviewer'] === 'ana',
      ),
    { what: 'the human verdict event' },
  );
  expect(event.attributes['gen_ai.evaluation.score.label']).toBe('wrong');
  expect(event.attributes['gen_ai.evaluation.evaluator.type']).toBe('human');
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
}, 90_000);
