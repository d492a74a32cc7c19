/**
 * A collector on a PostgreSQL ledger, end to end: spans from the official OpenTelemetry exporter
 * over OTLP, interactions recorded, evaluations run and recorded, all of it in the database; and a
 * second collector started on the same database after the first stopped finds it all.
 */
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfillCommand } from '../../collector/cli/backfill-command.ts';
import { main } from '../../collector/cli/main.ts';
import type { EvaluationRecord } from '../../src/evaluation/index.ts';
import { startTestCollector, testConfigYaml, type TestCollector } from '../helpers/collector.ts';
import { pollUntil } from '../helpers/poll.ts';
import { adminQuery, createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

const evaluation = `  evaluation:
    evaluators:
      reply-length:
        min-length: 20
        agents:
          support-agent: { trigger: interaction }
`;

/** The test collector's config with the ledger on PostgreSQL instead of a SQLite file. */
function postgresYaml(url: string) {
  return (dir: string) => {
    const yaml = testConfigYaml(dir).replace(/sqlite: \{ path: [^}]*\}/, `postgres: { url: "${url}" }`);
    expect(yaml).toContain('postgres: { url:');
    return yaml.replace(/ {2}evaluation:\n/, evaluation);
  };
}

let database: TestDatabase;
let collector: TestCollector;
let provider: TracerProvider;
let tracer: Tracer;
beforeAll(async () => {
  database = await createTestDatabase();
  collector = await startTestCollector({ yaml: postgresYaml(database.url) });
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'shop' }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }), scheduledDelayMillis: 50 }),
    ],
  });
  tracer = provider.getTracer('postgres-e2e');
});
afterAll(async () => {
  await provider?.shutdown();
  await collector?.close();
  await database?.drop();
});

function runAgent(agentId: string, answer: string): string {
  const agent = tracer.startSpan(`invoke_agent ${agentId}`, {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agentId,
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Where is my order?' }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]),
    },
  });
  agent.end();
  return `${agent.spanContext().traceId}-${agent.spanContext().spanId}`;
}

async function evaluationsOf(interactionId: string): Promise<EvaluationRecord[]> {
  return pollUntil(
    async () => {
      const response = await fetch(`${collector.apiUrl}/api/v1/interactions/${interactionId}/evaluations`);
      if (response.status !== 200) return undefined;
      const { evaluations } = (await response.json()) as { evaluations: EvaluationRecord[] };
      return evaluations.length > 0 ? evaluations : undefined;
    },
    { timeoutMs: 15_000, what: `the evaluations of ${interactionId}` },
  );
}

describe('collector on a PostgreSQL ledger', () => {
  it('records interactions and their evaluations from spans received over OTLP', async () => {
    const passing = runAgent('support-agent', 'Your order A-17 has shipped and arrives Friday.');
    const short = runAgent('support-agent', 'Shipped.');
    const unbound = runAgent('ops-agent', 'done');
    await provider.forceFlush();
    for (const id of [passing, short, unbound]) await collector.waitForInteraction((r) => r.interactionId === id);

    const [ok] = await evaluationsOf(passing);
    expect(ok).toMatchObject({
      evaluatorId: 'reply-length',
      agentId: 'support-agent',
      outcome: { type: 'verdict', evaluation: { passed: true } },
    });
    const [failed] = await evaluationsOf(short);
    expect(failed.outcome).toMatchObject({
      type: 'verdict',
      evaluation: { passed: false, explanation: 'reply of 8 characters, minimum 20' },
    });

    // It is all in the database: interactions, outcomes, an empty queue, released spans.
    await collector.collector.evaluation.idle();
    const count = async (sql: string) => Number((await adminQuery(database.url, sql)).rows[0].n);
    expect(await count('SELECT count(*) AS n FROM interactions')).toBe(3);
    expect(await count('SELECT count(*) AS n FROM evaluations')).toBe(2);
    expect(await count('SELECT count(*) AS n FROM evaluation_queue')).toBe(0);
    expect(await count('SELECT count(*) AS n FROM interaction_intake')).toBe(0);
    await pollUntil(async () => ((await count('SELECT count(*) AS n FROM pending_spans')) === 0 ? true : undefined), {
      what: 'the pending spans released',
    });

    // A collector started on the same database after this one stopped finds everything.
    await collector.close();
    collector = await startTestCollector({ yaml: postgresYaml(database.url) });
    expect((await collector.interactions('?limit=10')).map((r) => r.interactionId).sort()).toEqual(
      [passing, short, unbound].sort(),
    );
    expect(await evaluationsOf(passing)).toStrictEqual([ok]);
  });

  it('serves evalon explain and evalon backfill from the same database', async () => {
    const out: string[] = [];
    expect(
      await main(['explain', '--config', collector.configFile], { out: (line) => out.push(line), err: () => {} }),
    ).toBe(0);
    // ops-agent is named nowhere in the configuration: explain knows it from the ledger.
    expect(out.join('\n')).toMatch(/ops-agent/);

    const backfilled: string[] = [];
    const progress = { update: () => {}, finish: () => {} };
    const code = await runBackfillCommand(
      ['--evaluator', 'reply-length', '--version', '2', '--config', collector.configFile],
      { out: (l) => backfilled.push(l), err: () => {} },
      { progress },
    );
    expect(code).toBe(0);
    expect(backfilled.join('\n')).toMatch(/3 interactions read; 2 evaluated \(1 passed, 1 failed/);
    expect(Number((await adminQuery(database.url, 'SELECT count(*) AS n FROM evaluations')).rows[0].n)).toBe(4);
  });
});
