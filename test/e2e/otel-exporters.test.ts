/**
 * Spans from the official OpenTelemetry JS exporters (OTLP/HTTP JSON and protobuf, each with and
 * without gzip) become interaction records in the ledger.
 */
import { context, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';

let collector: TestCollector;
beforeAll(async () => {
  collector = await startTestCollector();
});
afterAll(async () => {
  await collector?.close();
});

/** One agent invocation: invoke_agent → chat (tool call) → execute_tool → chat (final answer). */
function runAgent(tracer: Tracer, question: string, answer: string, options: { fail?: boolean } = {}): string {
  const agent = tracer.startSpan('invoke_agent support-agent', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.agent.name': 'Support agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.conversation.id': 'conv-1',
      'evalon.agent.roles': ['customer-facing'],
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
    },
  });
  const inAgent = trace.setSpan(context.active(), agent);
  const chat1 = tracer.startSpan(
    'chat claude',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
      },
    },
    inAgent,
  );
  chat1.end();
  const tool = tracer.startSpan(
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
  );
  tool.end();
  const chat2 = tracer.startSpan(
    'chat claude',
    {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.usage.input_tokens': 20,
        'gen_ai.usage.output_tokens': 7,
      },
    },
    inAgent,
  );
  chat2.end();
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]),
  );
  if (options.fail) {
    agent.setAttribute('error.type', 'GuardrailError');
    agent.setStatus({ code: SpanStatusCode.ERROR, message: 'guardrail blocked the reply' });
  }
  agent.end();
  return `${agent.spanContext().traceId}-${agent.spanContext().spanId}`;
}

const exporters: Array<[string, (url: string) => SpanExporter]> = [
  ['OTLP/JSON', (url) => new JsonExporter({ url })],
  ['OTLP/JSON gzip', (url) => new JsonExporter({ url, compression: 'gzip' as never })],
  ['OTLP/protobuf', (url) => new ProtoExporter({ url })],
  ['OTLP/protobuf gzip', (url) => new ProtoExporter({ url, compression: 'gzip' as never })],
];

describe('spans from the official OpenTelemetry exporters', () => {
  for (const [name, makeExporter] of exporters) {
    for (const processorKind of ['simple', 'batch'] as const) {
      it(`become one interaction record (${name}, ${processorKind} span processor)`, async () => {
        const exporter = makeExporter(collector.otlpUrl);
        const processor =
          processorKind === 'simple' ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter });
        const provider = new TracerProvider({
          resource: resourceFromAttributes({ 'service.name': 'support-service' }),
          spanProcessors: [processor],
        });
        const question = `Where is order A-17? (${name} ${processorKind})`;
        const interactionId = runAgent(provider.getTracer('test'), question, 'It has shipped.');
        await provider.forceFlush();
        const record = await collector.waitForInteraction((r) => r.interactionId === interactionId);
        expect(record).toMatchObject({
          agentId: 'support-agent',
          agentName: 'Support agent',
          roles: ['customer-facing'],
          conversationId: 'conv-1',
          failed: false,
          finalResponseText: 'It has shipped.',
          completion: 'structural',
          usage: { inputTokens: 30, outputTokens: 12 },
        });
        expect(record.input[0]).toMatchObject({ role: 'user', parts: [{ type: 'text', content: question }] });
        expect(record.toolCalls).toEqual([
          { name: 'lookup_order', callId: 'call_1', arguments: { order: 'A-17' }, result: { status: 'shipped' } },
        ]);
        await provider.shutdown();
      });
    }
  }

  it('records a failed agent span as failed, with a summary', async () => {
    const provider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter: new ProtoExporter({ url: collector.otlpUrl }) })],
    });
    const interactionId = runAgent(provider.getTracer('test'), 'Refund me', 'blocked reply', { fail: true });
    await provider.forceFlush();
    const record = await collector.waitForInteraction((r) => r.interactionId === interactionId);
    expect(record.failed).toBe(true);
    expect(record.failureSummary).toBe('guardrail blocked the reply');
    await provider.shutdown();
  });

  it('answers interaction queries by agent and conversation, and 404 for an unknown id', async () => {
    const byAgent = await collector.interactions('?agent=support-agent&conversation=conv-1');
    expect(byAgent.length).toBeGreaterThan(0);
    expect(byAgent.every((r) => r.agentId === 'support-agent')).toBe(true);
    const missing = await fetch(`${collector.apiUrl}/api/v1/interactions/${'0'.repeat(32)}-${'0'.repeat(16)}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toHaveProperty('error');
  });
});
