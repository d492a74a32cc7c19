/**
 * The LLM judges end to end: a collector in process with `llm-judge` and `criteria-judge` bound to
 * an agent, ANTHROPIC_BASE_URL pointing at the scripted model (with the /bedrock suffix a gateway
 * would have), spans in through the official OTel exporter, verdicts read back from
 * `GET /api/v1/interactions/{id}/evaluations`.
 */
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EvaluationRecord } from '../../../src/evaluation/index.ts';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';
import { startTestCollector, testConfigYaml, type TestCollector } from '../../helpers/collector.ts';
import { pollUntil } from '../../helpers/poll.ts';

const EVALUATION = `  evaluation:
    evaluators:
      llm-judge:
        rubric: The reply tells the customer where the order is and when it arrives.
        pass_threshold: 0.7
        agents:
          support-agent: { trigger: interaction }
      criteria-judge:
        criteria:
          - name: looked-up
            description: The agent looked up the order before answering
            require_tool_call: lookup_order
          - name: refund
            description: The agent issued a refund
            require_tool_call: issue_refund
            weight: 0
        agents:
          support-agent: { trigger: interaction }
`;

const ENV_KEYS = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'EVALON_MODEL'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
let scripted: ScriptedModel;
let collector: TestCollector;
let provider: TracerProvider;

beforeAll(async () => {
  scripted = await createScriptedModel();
  scripted.respondWith((request) => {
    const system = String(request.body.system);
    if (system.includes('## Rubric')) {
      return {
        toolUse: [
          {
            name: 'record_verdict',
            input: { passed: true, score: 0.85, label: 'good', explanation: 'Says it shipped and arrives Friday.' },
          },
        ],
        usage: { input_tokens: 321, output_tokens: 42 },
      };
    }
    return {
      toolUse: [{ name: 'record_verdict', input: { passed: true, reasoning: 'lookup_order was called first' } }],
      usage: { input_tokens: 200, output_tokens: 20 },
    };
  });
  process.env.ANTHROPIC_BASE_URL = `${scripted.baseURL}/bedrock`;
  process.env.ANTHROPIC_API_KEY = 'e2e-key';
  process.env.EVALON_MODEL = 'claude-e2e-judge';
  collector = await startTestCollector({ yaml: (dir) => testConfigYaml(dir).replace(/ {2}evaluation:\n/, EVALUATION) });
  provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'shop' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }) })],
  });
});

afterAll(async () => {
  await provider?.shutdown();
  await collector?.close();
  await scripted?.close();
  for (const key of ENV_KEYS) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
});

it('judges an interaction sent through OTLP and records both verdicts with token usage', async () => {
  const tracer = provider.getTracer('llm-judge-e2e');
  const agent = tracer.startSpan('invoke_agent support-agent', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Where is my order A-17?' }] },
      ]),
    },
  });
  const inAgent = trace.setSpan(context.active(), agent);
  tracer
    .startSpan(
      'execute_tool lookup_order',
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'lookup_order',
          'gen_ai.tool.call.id': 'call_1',
          'gen_ai.tool.call.arguments': JSON.stringify({ order: 'A-17' }),
          'gen_ai.tool.call.result': JSON.stringify({ status: 'shipped' }),
        },
      },
      inAgent,
    )
    .end();
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([
      { role: 'assistant', parts: [{ type: 'text', content: 'Order A-17 has shipped and arrives Friday.' }] },
    ]),
  );
  agent.end();
  const interactionId = `${agent.spanContext().traceId}-${agent.spanContext().spanId}`;
  await provider.forceFlush();

  const records = await pollUntil(
    async () => {
      const response = await fetch(`${collector.apiUrl}/api/v1/interactions/${interactionId}/evaluations`);
      if (response.status !== 200) return undefined;
      const { evaluations } = (await response.json()) as { evaluations: EvaluationRecord[] };
      return evaluations.length >= 2 ? evaluations : undefined;
    },
    { timeoutMs: 20_000, what: `2 evaluations of ${interactionId}` },
  );
  const byId = Object.fromEntries(records.map((record) => [record.evaluatorId, record]));
  expect(byId['llm-judge']).toMatchObject({
    interactionId,
    agentId: 'support-agent',
    outcome: {
      type: 'verdict',
      evaluation: {
        passed: true,
        score: 0.85,
        label: 'good',
        explanation: 'Says it shipped and arrives Friday.',
        attributes: {
          'gen_ai.usage.input_tokens': 321,
          'gen_ai.usage.output_tokens': 42,
          'gen_ai.request.model': 'claude-e2e-judge',
          pass_threshold: 0.7,
        },
      },
    },
  });
  expect(byId['criteria-judge']).toMatchObject({
    outcome: {
      type: 'verdict',
      evaluation: {
        passed: true,
        score: 1,
        attributes: {
          criteria_passed: 1,
          criteria_total: 2,
          criteria_failed: 'refund',
          'gen_ai.usage.input_tokens': 200,
        },
      },
    },
  });
  // One call for llm-judge, one for the criterion whose tool was called; none for the missing refund.
  expect(scripted.requests).toHaveLength(2);
  const rubricRequest = scripted.requests.find((request) => String(request.body.system).includes('## Rubric'))!;
  expect(rubricRequest.body.model).toBe('claude-e2e-judge');
  expect(String(rubricRequest.body.messages[0].content)).toContain('[tool_call] lookup_order({"order":"A-17"})');
  expect(JSON.stringify(rubricRequest.headers)).toContain('e2e-key');
});
