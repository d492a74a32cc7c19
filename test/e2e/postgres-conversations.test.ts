/**
 * Two collector replicas on one PostgreSQL ledger, a conversation whose turns (different traces)
 * land on different replicas: each replica records its turns into the shared conversation, the
 * replica that receives the ending turn closes it, and the conversation gets one evaluation that
 * saw every turn — exactly once, though both replicas take conversations in. An end requested
 * through one replica's API closes a conversation whose turns the other replica received.
 * Spans go through the official OpenTelemetry exporter.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../collector/config/index.ts';
import { silentLogger } from '../../collector/logger.ts';
import { startCollector, type RunningCollector } from '../../collector/service.ts';
import type { ConversationWithInteractions, EvaluationRecord } from '../../src/model/records.ts';
import { pollUntil } from '../helpers/poll.ts';
import { adminQuery, createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

interface Replica {
  collector: RunningCollector;
  provider: TracerProvider;
  apiUrl: string;
  dir: string;
}

async function startReplica(url: string, replicaId: string): Promise<Replica> {
  const dir = mkdtempSync(join(tmpdir(), `evalon-conversations-${replicaId}-`));
  const file = join(dir, 'otel-config.yaml');
  writeFileSync(
    file,
    `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions:
    settle: 150ms
    decision_wait: 2s
    conversation_idle: 1h
  evaluation:
    ledger:
      postgres: { url: "${url}", replica_id: ${replicaId} }
    evaluators:
      tool-call-required:
        tools: [ get_order ]
        agents:
          support-agent: { trigger: conversation }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
  );
  const collector = await startCollector(loadConfig([file]).config, { logger: silentLogger });
  const { host, port } = collector.otlpAddress!;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'shop' }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `http://${host}:${port}/v1/traces` }) }),
    ],
  });
  return { collector, provider, apiUrl: `http://${collector.apiAddress!.host}:${collector.apiAddress!.port}`, dir };
}

/** One turn (its own trace) of `conversationId`, sent to `replica` and acknowledged. */
async function turn(
  replica: Replica,
  conversationId: string,
  options: { tool?: boolean; end?: boolean } = {},
): Promise<string> {
  const tracer = replica.provider.getTracer('conversations-replicas');
  const span = tracer.startSpan('invoke_agent support-agent', {
    root: true,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.conversation.id': conversationId,
      ...(options.tool
        ? { 'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"tool_call","name":"get_order"}]}]' }
        : {}),
      ...(options.end ? { 'evalon.conversation.ended': true } : {}),
    },
  });
  span.end();
  await replica.provider.forceFlush();
  return `${span.spanContext().traceId}-${span.spanContext().spanId}`;
}

let database: TestDatabase;
let a: Replica;
let b: Replica;
beforeAll(async () => {
  database = await createTestDatabase();
  a = await startReplica(database.url, 'replica-a');
  b = await startReplica(database.url, 'replica-b');
}, 60_000);
afterAll(async () => {
  for (const replica of [a, b]) {
    await replica?.provider.shutdown();
    await replica?.collector.shutdown();
    if (replica) rmSync(replica.dir, { recursive: true, force: true });
  }
  await database?.drop();
});

async function conversation(replica: Replica, conversationId: string): Promise<ConversationWithInteractions> {
  return (await (
    await fetch(`${replica.apiUrl}/api/v1/conversations/${conversationId}`)
  ).json()) as ConversationWithInteractions;
}

/** Waits until `count` turns of the conversation are in the shared ledger. */
async function recorded(conversationId: string, count: number): Promise<void> {
  await pollUntil(async () => ((await conversation(a, conversationId)).turns === count ? true : undefined), {
    timeoutMs: 15_000,
    what: `${count} turns of ${conversationId} recorded`,
  });
}

async function evaluationsOf(replica: Replica, conversationId: string): Promise<EvaluationRecord[]> {
  const response = await fetch(`${replica.apiUrl}/api/v1/conversations/${conversationId}/evaluations`);
  return ((await response.json()) as { evaluations: EvaluationRecord[] }).evaluations;
}

const conversationRows = async () =>
  Number(
    (await adminQuery(database.url, "SELECT count(*) AS n FROM evaluations WHERE interaction_id LIKE 'conversation:%'"))
      .rows[0].n,
  );

describe('a conversation across two replicas on PostgreSQL', () => {
  it('gets one evaluation, with every turn, when its turns land on different replicas', async () => {
    const ids: string[] = [];
    for (const [index, replica] of [a, b, a].entries()) {
      ids.push(await turn(replica, 'c-split', { tool: index === 1 }));
      await recorded('c-split', index + 1);
    }
    ids.push(await turn(b, 'c-split', { end: true }));
    const [record] = await pollUntil(
      async () => {
        const found = await evaluationsOf(a, 'c-split');
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 30_000, what: 'the conversation evaluation' },
    );
    expect(record).toMatchObject({
      interactionId: ids[3],
      subject: { kind: 'conversation', conversationId: 'c-split', agentId: 'support-agent', revision: 1 },
      outcome: { evaluation: { passed: true, explanation: 'called get_order in 4 turns (all required)' } },
    });
    expect((await conversation(b, 'c-split')).interactionIds).toEqual(ids);
    // Both replicas take revisions in (and sweep for those left behind): still one outcome.
    await Promise.all([a.collector.evaluation.idle(), b.collector.evaluation.idle()]);
    expect(await evaluationsOf(b, 'c-split')).toHaveLength(1);
    expect(await conversationRows()).toBe(1);
  });

  it('closes, on the replica asked, a conversation whose turns the other replica received', async () => {
    await turn(a, 'c-api', { tool: true });
    await turn(a, 'c-api');
    await recorded('c-api', 2);
    const ended = await fetch(`${b.apiUrl}/api/v1/conversations/c-api/end`, { method: 'POST' });
    expect(ended.status).toBe(202);
    const [record] = await pollUntil(
      async () => {
        const found = await evaluationsOf(b, 'c-api');
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 30_000, what: 'the evaluation of the conversation ended through the API' },
    );
    expect(record.outcome).toMatchObject({ evaluation: { passed: true } });
    expect(await conversation(a, 'c-api')).toMatchObject({ open: false, endReason: 'explicit', turns: 2 });
  });
});
