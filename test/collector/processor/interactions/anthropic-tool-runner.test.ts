/**
 * The real `@anthropic-ai/sdk` with its native tracing in content mode: its tool runner, with two
 * tools, runs against the scripted model inside the application's own `invoke_agent` span. The
 * spans it exports are the ones an agent sends the collector.
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import type { SpanData } from '../../../../collector/model/span.ts';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { classifyInvocation } from '../../../../collector/processor/interactions/classify.ts';
import { createScriptedModel, type ScriptedModel } from '../../../../src/testing/scripted-model.ts';
import { readableSpansToSpanData } from '../../../helpers/readable-span-to-span-data.ts';

describe('the Anthropic SDK tool runner, traced natively, inside an application agent span', () => {
  let model: ScriptedModel;
  let contextManager: AsyncLocalStorageContextManager;
  let spans: SpanData[];
  let finalText: string;

  beforeAll(async () => {
    // The tool runner parents its span on the active context, as in an instrumented application.
    contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);

    model = await createScriptedModel();
    model.enqueue(
      {
        toolUse: [
          { name: 'get_weather', input: { city: 'Paris' }, id: 'toolu_weather' },
          { name: 'get_time', input: { timezone: 'Europe/Paris' }, id: 'toolu_time' },
        ],
        usage: { input_tokens: 40, output_tokens: 30 },
      },
      { text: 'It is sunny in Paris and 12:00 there.', usage: { input_tokens: 90, output_tokens: 15 } },
    );

    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'support-app' }),
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    const client = new Anthropic({
      apiKey: 'test-key',
      baseURL: model.baseURL,
      maxRetries: 0,
      openTelemetry: { tracerProvider, traces: { contentMode: 'content' } },
    });
    const tracer = tracerProvider.getTracer('support-app');

    finalText = await tracer.startActiveSpan(
      'invoke_agent support-agent',
      {
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': 'support-agent',
          'evalon.agent.roles': ['customer-facing'],
        },
      },
      async (span) => {
        try {
          const message = await client.beta.messages.toolRunner({
            model: 'claude-scripted',
            max_tokens: 512,
            messages: [{ role: 'user', content: 'What is the weather and the time in Paris?' }],
            tools: [
              betaTool({
                name: 'get_weather',
                description: 'Current weather in a city',
                inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
                run: async (input: { city: string }) => `sunny in ${input.city}`,
              }),
              betaTool({
                name: 'get_time',
                description: 'Local time in a timezone',
                inputSchema: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
                run: async (input: { timezone: string }) => `12:00 in ${input.timezone}`,
              }),
            ],
          });
          return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
        } finally {
          span.end();
        }
      },
    );
    await tracerProvider.forceFlush();
    spans = readableSpansToSpanData(exporter.getFinishedSpans());
    await tracerProvider.shutdown();
  });

  afterAll(async () => {
    await model?.close();
    contextManager?.disable();
    context.disable();
  });

  const named = (name: string) => spans.find((span) => span.name === name)!;

  it('emits the application span, the tool runner span, two chat spans and two tool spans', () => {
    expect(finalText).toBe('It is sunny in Paris and 12:00 there.');
    expect(spans.map((span) => span.name).sort()).toEqual([
      'anthropic.custom_tool_use get_time',
      'anthropic.custom_tool_use get_weather',
      'anthropic.messages.create',
      'anthropic.messages.create',
      'anthropic.messages.tool_runner',
      'invoke_agent support-agent',
    ]);
    const app = named('invoke_agent support-agent');
    expect(named('anthropic.messages.tool_runner').parentSpanId).toBe(app.spanId);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
  });

  it('classifies the application span as support-agent and the tool runner as an invocation with no identity', () => {
    expect(classifyInvocation(named('invoke_agent support-agent'))).toEqual({
      dialect: 'semconv',
      agentIdentity: 'support-agent',
    });
    // No identity of its own: it merges into the enclosing support-agent interaction.
    expect(classifyInvocation(named('anthropic.messages.tool_runner'))).toEqual({ dialect: 'anthropic' });
    const invocations = spans.filter((span) => classifyInvocation(span) !== undefined);
    expect(invocations).toHaveLength(2);
  });

  it('without an application span, makes the tool runner the interaction, named after the service', () => {
    const runner = named('anthropic.messages.tool_runner');
    const record = buildInteractionRecord({
      root: runner,
      spans: spans.filter((span) => span.name !== 'invoke_agent support-agent'),
      nested: [],
      completion: 'structural',
    });
    expect(record.agentId).toBe('support-app');
    expect(record.roles).toEqual([]);
    expect(record.toolCalls.map((call) => call.name)).toEqual(['get_weather', 'get_time']);
    expect(record.finalResponseText).toBe('It is sunny in Paris and 12:00 there.');
  });

  describe('the record built from all spans', () => {
    let record: InteractionRecord;
    beforeAll(() => {
      const root = named('invoke_agent support-agent');
      record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });
    });

    it('is one interaction of support-agent with its roles', () => {
      const root = named('invoke_agent support-agent');
      expect(record.interactionId).toBe(`${root.traceId}-${root.spanId}`);
      expect(record.agentId).toBe('support-agent');
      expect(record.roles).toEqual(['customer-facing']);
      expect(record.failed).toBe(false);
      expect(record.provider).toBe('anthropic');
      expect(record.model).toBe('claude-scripted');
      expect(record.attributes).toMatchObject({ 'service.name': 'support-app', 'gen_ai.agent.id': 'support-agent' });
    });

    it('has both tool calls with their names, arguments and results, once each', () => {
      expect(record.toolCalls).toEqual([
        { name: 'get_weather', callId: 'toolu_weather', arguments: { city: 'Paris' }, result: 'sunny in Paris' },
        {
          name: 'get_time',
          callId: 'toolu_time',
          arguments: { timezone: 'Europe/Paris' },
          result: '12:00 in Europe/Paris',
        },
      ]);
    });

    it('has the question, the final text and the summed usage of the two chat calls', () => {
      expect(record.input).toEqual([
        { role: 'user', parts: [{ type: 'text', content: 'What is the weather and the time in Paris?' }] },
      ]);
      expect(record.finalResponseText).toBe('It is sunny in Paris and 12:00 there.');
      expect(record.output[0].finishReason).toBe('end_turn');
      expect(record.usage).toEqual({ inputTokens: 40 + 90, outputTokens: 30 + 15 });
    });

    it('tells the story in order: question, both tools, answer', () => {
      expect(
        record.transcript.map((entry) =>
          entry.type === 'tool_call' ? `tool:${entry.name}` : entry.type === 'message' ? entry.role : entry.type,
        ),
      ).toEqual(['user', 'tool:get_weather', 'tool:get_time', 'assistant']);
      const times = record.transcript.map((entry) => entry.time!);
      expect([...times].sort()).toEqual(times);
    });
  });
});
