/**
 * Retention end to end: a collector configured with `processors.evaluation.ledger.retention`
 * receives an agent's spans over OTLP from the official exporter (one interaction that ended 40
 * days ago, one now), evaluates both, and its pruner removes the old one: the API answers 410 for
 * it and still lists its evaluations, and the metrics show the ledger's size and what was pruned.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context as otelContext, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluationRecord } from '../../src/model/records.ts';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';
import { pollUntil } from '../helpers/poll.ts';
import { sampleValue, scrape } from '../helpers/prometheus-text.ts';

const DAY = 86_400_000;

/** One agent invocation with a chat child, ended `daysAgo` days ago; resolves its interaction id. */
async function runAgent(url: string, daysAgo: number): Promise<string> {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url }) })],
  });
  const tracer = provider.getTracer('agent');
  const end = Date.now() - daysAgo * DAY;
  const agent = tracer.startSpan('invoke_agent support-agent', {
    startTime: end - 2_000,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'support-agent' },
  });
  tracer
    .startSpan(
      'chat claude',
      { startTime: end - 1_500, attributes: { 'gen_ai.operation.name': 'chat' } },
      trace.setSpan(otelContext.active(), agent),
    )
    .end(end - 500);
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Your refund is on its way.' }] }]),
  );
  agent.end(end);
  await provider.forceFlush();
  await provider.shutdown();
  const { traceId, spanId } = agent.spanContext();
  return `${traceId}-${spanId}`;
}

describe('ledger retention in a running collector', () => {
  let dir: string;
  let running: TestCollector;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evalon-retention-'));
    running = await startTestCollector({
      dir,
      yaml: (folder) => `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: { settle: 150ms, decision_wait: 3s }
  evaluation:
    ledger:
      sqlite: { path: ${join(folder, 'ledger.db')} }
      retention: { max_age: 30d, keep_evaluations: 365d, max_size: 1GiB }
    evaluators:
      reply-length: { min-length: 5, agents: { support-agent: {} } }
exporters:
  prometheus: { endpoint: 127.0.0.1:0 }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    metrics: { exporters: [prometheus] }
`,
    });
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string) => {
    const response = await fetch(running.apiUrl + path);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const evaluationsOf = async (id: string) =>
    ((await get(`/api/v1/interactions/${id}/evaluations`)).body.evaluations ?? []) as EvaluationRecord[];

  it('prunes what ended before max_age, answers 410 for it, and keeps its evaluations listed', async () => {
    const old = await runAgent(running.otlpUrl, 40);
    const recent = await runAgent(running.otlpUrl, 0);
    for (const id of [old, recent])
      await pollUntil(async () => ((await evaluationsOf(id)).length > 0 ? true : undefined), {
        what: `the evaluation of ${id}`,
      });
    const verdicts = await evaluationsOf(old);
    // The ledger keeps its last recorded interaction (the intake's mark): on a busy machine the old
    // interaction may be recorded after the recent one, so one more is recorded after both.
    const latest = await runAgent(running.otlpUrl, 0);
    await pollUntil(async () => ((await evaluationsOf(latest)).length > 0 ? true : undefined), {
      what: `the evaluation of ${latest}`,
    });

    // A pass now (the pruner's own, every 5 s, may have come first: the end is the same).
    await running.collector.pruner!.pruneNow();
    const gone = await get(`/api/v1/interactions/${old}`);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ interactionId: old, agentId: 'support-agent' });
    expect(Date.parse(String(gone.body.prunedAt))).toBeGreaterThan(Date.now() - 60_000);
    expect(await evaluationsOf(old)).toEqual(verdicts);
    expect((await get(`/api/v1/interactions/${recent}`)).status).toBe(200);

    const { samples } = await scrape(running.collector.prometheusAddress!);
    expect(sampleValue(samples, 'evalon_ledger_pruned_total', { kind: 'interactions' })).toBe(1);
    expect(sampleValue(samples, 'evalon_ledger_pruned_total', { kind: 'evaluations' })).toBe(0);
    expect(sampleValue(samples, 'evalon_ledger_size', { state: 'used' })).toBeGreaterThan(100_000);
    expect(sampleValue(samples, 'evalon_ledger_size', { state: 'free' })).toBeGreaterThanOrEqual(0);
  });
});
