/**
 * The real `@anthropic-ai/sdk`, with its native OpenTelemetry tracing in content mode, runs its
 * tool runner against a local scripted Messages API inside the application's own `invoke_agent`
 * span. The spans go to the collector through the official OTLP/protobuf exporter, and the ledger
 * holds ONE interaction for the application's agent, with the tool calls, their results and the
 * final text.
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScriptedModel, type ScriptedModel } from '../../src/testing/scripted-model.ts';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';

let collector: TestCollector;
let model: ScriptedModel;
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  collector = await startTestCollector();
  model = await createScriptedModel();
});
afterAll(async () => {
  await model?.close();
  await collector?.close();
  context.disable();
});

it('yields one interaction for the application agent, with the tool runner merged into it', async () => {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-service' }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: collector.otlpUrl }) })],
  });
  const client = new Anthropic({
    apiKey: 'test-key',
    baseURL: model.baseURL,
    maxRetries: 0,
    openTelemetry: { tracerProvider: provider, traces: { contentMode: 'content' } },
  });
  model.enqueue(
    {
      text: 'Let me check.',
      toolUse: [
        { name: 'get_order', input: { orderId: 'A-17' }, id: 'toolu_order' },
        { name: 'get_shipping', input: { orderId: 'A-17' }, id: 'toolu_ship' },
      ],
    },
    { text: 'Order A-17 shipped on Monday with UPS.' },
  );
  const getOrder = betaTool({
    name: 'get_order',
    description: 'Looks an order up',
    inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    run: async ({ orderId }) => JSON.stringify({ orderId, status: 'shipped' }),
  });
  const getShipping = betaTool({
    name: 'get_shipping',
    description: 'Shipping details of an order',
    inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    run: async () => 'UPS, Monday',
  });

  const tracer = provider.getTracer('support-app');
  const agentSpan = tracer.startSpan('invoke_agent support-agent', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'evalon.agent.roles': ['customer-facing'],
    },
  });
  const finalMessage = await context.with(trace.setSpan(context.active(), agentSpan), async () =>
    client.beta.messages.toolRunner({
      model: 'claude-test',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Where is my order A-17?' }],
      tools: [getOrder, getShipping],
    }),
  );
  agentSpan.end();
  expect(finalMessage.content[0]).toMatchObject({ type: 'text', text: 'Order A-17 shipped on Monday with UPS.' });
  await provider.forceFlush();

  const interactionId = `${agentSpan.spanContext().traceId}-${agentSpan.spanContext().spanId}`;
  const record = await collector.waitForInteraction((r) => r.interactionId === interactionId);
  expect(record.agentId).toBe('support-agent');
  expect(record.roles).toEqual(['customer-facing']);
  expect(record.finalResponseText).toBe('Order A-17 shipped on Monday with UPS.');
  expect(record.toolCalls.map((call) => call.name).sort()).toEqual(['get_order', 'get_shipping']);
  const order = record.toolCalls.find((call) => call.name === 'get_order')!;
  expect(order.callId).toBe('toolu_order');
  expect(order.arguments).toEqual({ orderId: 'A-17' });
  expect(JSON.stringify(order.result)).toContain('shipped');
  expect(record.usage.inputTokens).toBeGreaterThan(0);
  expect(record.transcript.some((entry) => entry.type === 'tool_call')).toBe(true);

  // Exactly one interaction in this trace: the tool runner did not become an interaction of its own.
  const all = await collector.interactions('?limit=1000');
  expect(all.filter((r) => r.traceId === agentSpan.spanContext().traceId)).toHaveLength(1);
  await provider.shutdown();
});
