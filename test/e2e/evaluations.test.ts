/**
 * Evaluators bound by configuration, end to end: spans from the official OpenTelemetry exporters
 * into the collector, the right evaluators run for the right agents, records out through the API
 * (`GET /api/v1/interactions/{id}/evaluations`) and `evalon ledger evaluations`.
 */
import { context, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../collector/cli/main.ts';
import type { EvaluationRecord } from '../../src/evaluation/index.ts';
import { startTestCollector, testConfigYaml, type TestCollector } from '../helpers/collector.ts';
import { pollUntil } from '../helpers/poll.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/evaluators/index.ts', import.meta.url));

const EVALUATION = `  evaluation:
    modules: [ ${EXAMPLES} ]
    concurrency: 8
    evaluators:
      interaction-quality-evaluator:
        control-id: QA-1
        agents:
          support-agent: { trigger: interaction }
          billing-agent: { trigger: interaction, enabled: false }
        agent-roles:
          customer-facing: { trigger: interaction }
      reply-length-evaluator:
        min-length: 20
        agents:
          support-agent: { trigger: interaction }
          billing-agent: { trigger: interaction, min-length: 50 }
      tool-call-required:
        tools: [ lookup_order ]
        agents:
          support-agent: { trigger: interaction, trigger-on-failure: true }
      contains:
        values: [ order ]
        agent-roles:
          "*": { trigger: interaction }
`;

let collector: TestCollector;
let provider: TracerProvider;
let tracer: Tracer;
beforeAll(async () => {
  collector = await startTestCollector({ yaml: (dir) => testConfigYaml(dir).replace(/ {2}evaluation:\n/, EVALUATION) });
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'shop' }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }), scheduledDelayMillis: 50 }),
    ],
  });
  tracer = provider.getTracer('evaluations-e2e');
});
afterAll(async () => {
  await provider?.shutdown();
  await collector?.close();
});

/** One agent invocation (invoke_agent, optionally a tool call), as an instrumented agent emits it. */
function runAgent(
  agentId: string,
  answer: string,
  options: { roles?: string[]; tool?: string; failed?: boolean; insideEvaluation?: string } = {},
): string {
  const agent = tracer.startSpan(`invoke_agent ${agentId}`, {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agentId,
      ...(options.roles ? { 'evalon.agent.roles': options.roles } : {}),
      ...(options.insideEvaluation ? { 'evalon.evaluation.id': options.insideEvaluation } : {}),
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Where is my order?' }] },
      ]),
    },
  });
  if (options.tool) {
    const inAgent = trace.setSpan(context.active(), agent);
    tracer
      .startSpan(
        `execute_tool ${options.tool}`,
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': options.tool,
            'gen_ai.tool.call.id': 'call_1',
          },
        },
        inAgent,
      )
      .end();
  }
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]),
  );
  if (options.failed) agent.setStatus({ code: 2, message: 'guardrail blocked the reply' });
  agent.end();
  return `${agent.spanContext().traceId}-${agent.spanContext().spanId}`;
}

async function evaluationsOf(interactionId: string, count: number): Promise<EvaluationRecord[]> {
  return pollUntil(
    async () => {
      const response = await fetch(`${collector.apiUrl}/api/v1/interactions/${interactionId}/evaluations`);
      if (response.status !== 200) return undefined;
      const { evaluations } = (await response.json()) as { evaluations: EvaluationRecord[] };
      return evaluations.length >= count ? evaluations : undefined;
    },
    { timeoutMs: 15_000, what: `${count} evaluations of ${interactionId}` },
  );
}

const byEvaluator = (records: EvaluationRecord[]) => Object.fromEntries(records.map((r) => [r.evaluatorId, r]));

describe('evaluators bound by configuration, through OTLP', () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    ids.support = runAgent('support-agent', 'Your order A-17 has shipped and arrives Friday.', {
      roles: ['customer-facing'],
      tool: 'lookup_order',
    });
    ids.billing = runAgent('billing-agent', 'Your refund for the order is done.', { roles: ['customer-facing'] });
    ids.shop = runAgent('shop-agent', 'We have it in blue.', { roles: ['customer-facing'] });
    ids.judge = runAgent('quality-judge', '{"passed": true}', { roles: ['judge'], insideEvaluation: 'evaluation-42' });
    ids.failed = runAgent('support-agent', 'blocked', { failed: true });
    ids.unbound = runAgent('ops-agent', 'done');
    await provider.forceFlush();
    for (const id of Object.values(ids)) await collector.waitForInteraction((r) => r.interactionId === id);
  });

  it('runs the agent’s own entries, its role’s and *, and records each outcome with its control id', async () => {
    const records = byEvaluator(await evaluationsOf(ids.support, 4));
    expect(Object.keys(records).sort()).toEqual([
      'contains',
      'interaction-quality-evaluator',
      'reply-length-evaluator',
      'tool-call-required',
    ]);
    expect(records['interaction-quality-evaluator']).toMatchObject({
      interactionId: ids.support,
      agentId: 'support-agent',
      evaluatorVersion: '1',
      controlId: 'QA-1',
      attempts: 1,
      outcome: {
        type: 'verdict',
        evaluation: { passed: true, explanation: 'agent responded', score: 1, attributes: { length: '47' } },
      },
    });
    expect(records['reply-length-evaluator'].outcome).toEqual({
      type: 'verdict',
      evaluation: { passed: true, explanation: 'reply of 47 characters, minimum 20', attributes: {} },
    });
    expect(records['tool-call-required'].outcome).toMatchObject({ type: 'verdict', evaluation: { passed: true } });
    expect(records.contains.outcome).toMatchObject({ type: 'verdict', evaluation: { passed: true } });
  });

  it(
    'does not evaluate billing-agent with its disabled ' + 'entry, despite its role, and uses its own min-length',
    async () => {
      const records = byEvaluator(await evaluationsOf(ids.billing, 2));
      expect(Object.keys(records).sort()).toEqual(['contains', 'reply-length-evaluator']);
      expect(records['reply-length-evaluator'].outcome).toMatchObject({
        evaluation: { passed: false, explanation: 'reply of 34 characters, minimum 50' },
      });
    },
  );

  it('binds an agent through its role, and a failed interaction only where trigger-on-failure is set', async () => {
    expect(Object.keys(byEvaluator(await evaluationsOf(ids.shop, 2))).sort()).toEqual([
      'contains',
      'interaction-quality-evaluator',
    ]);
    const failed = await evaluationsOf(ids.failed, 1);
    expect(failed.map((r) => r.evaluatorId)).toEqual(['tool-call-required']);
    expect(failed[0].outcome).toMatchObject({ evaluation: { passed: false } });
  });

  it(
    'never evaluates an interaction inside an evaluation or one no entry binds, and answers 404 for an unknown ' +
      'interaction',
    async () => {
      await evaluationsOf(ids.support, 4); // by now every earlier interaction has been taken in
      const stats = (await (await fetch(`${collector.apiUrl}/api/v1/stats`)).json()) as {
        evaluation: { insideEvaluation: number; waiting: number };
      };
      expect(stats.evaluation.insideEvaluation).toBe(1);
      await collector.collector.evaluation.idle();
      for (const id of [ids.judge, ids.unbound]) {
        const response = await fetch(`${collector.apiUrl}/api/v1/interactions/${id}/evaluations`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ evaluations: [] });
      }
      const unknown = await fetch(
        `${collector.apiUrl}/api/v1/interactions/${'0'.repeat(32)}-${'0'.repeat(16)}/evaluations`,
      );
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: `interaction ${'0'.repeat(32)}-${'0'.repeat(16)} not found` });
    },
  );

  it('shows the evaluations with evalon ledger evaluations, as a table and as JSON', async () => {
    await evaluationsOf(ids.billing, 2);
    const out: string[] = [];
    expect(
      await main(['ledger', 'evaluations', ids.billing, '--api', collector.apiUrl], {
        out: (l) => out.push(l),
        err: (l) => out.push(l),
      }),
    ).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/EVALUATOR\s+VERSION\s+OUTCOME/);
    expect(text).toMatch(/reply-length-evaluator\s+1\s+fail\s+.*reply of 34 characters, minimum 50/);
    expect(text).toMatch(/contains\s+1\s+pass/);
    const json: string[] = [];
    expect(
      await main(['ledger', 'evaluations', ids.billing, '--json', '--api', collector.apiUrl], {
        out: (l) => json.push(l),
        err: () => {},
      }),
    ).toBe(0);
    expect((JSON.parse(json.join('\n')) as EvaluationRecord[]).map((r) => r.evaluatorId).sort()).toEqual([
      'contains',
      'reply-length-evaluator',
    ]);
    const missing: string[] = [];
    const unknownId = `${'0'.repeat(32)}-${'0'.repeat(16)}`;
    expect(
      await main(['ledger', 'evaluations', unknownId, '--api', collector.apiUrl], {
        out: (l) => missing.push(l),
        err: (l) => missing.push(l),
      }),
    ).toBe(1);
    expect(missing).toEqual([`interaction ${unknownId} not found`]);
  });
});
