import { describe, expect, it } from 'vitest';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { legacySemconvTrace, semconvTrace } from '../../../fixtures/dialects/semconv.ts';
import { isoAt } from '../../../fixtures/dialects/trace-builder.ts';

describe('buildInteractionRecord: OTel GenAI semconv', () => {
  it('builds every field from invoke_agent, chat and execute_tool spans with JSON-string messages', () => {
    const { root, spans } = semconvTrace();
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });

    expect(record).toMatchObject({
      interactionId: `${root.traceId}-${root.spanId}`,
      traceId: root.traceId,
      spanId: root.spanId,
      agentId: 'support-agent',
      agentName: 'Support Agent',
      roles: ['customer-facing'],
      conversationId: 'conv-42',
      startTime: isoAt(0),
      endTime: isoAt(1200),
      durationMs: 1200,
      failed: false,
      finalResponseText: 'It is rainy in Paris, 57°F.',
      model: 'gpt-4o',
      provider: 'openai',
      completion: 'structural',
    });
    expect(record.flowId).toBeUndefined();
    expect(record.failureSummary).toBeUndefined();
    // What the agent was asked: the first model call's input without the system prompt.
    expect(record.input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] }]);
    expect(record.output).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'It is rainy in Paris, 57°F.' }], finishReason: 'stop' },
    ]);
    expect(record.toolCalls).toEqual([
      { name: 'get_weather', callId: 'call_VSPy', arguments: { location: 'Paris' }, result: 'rainy, 57°F' },
    ]);
  });

  it('writes the transcript in time order: question, tool call with its result, answer', () => {
    const { root, spans } = semconvTrace();
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });
    expect(record.transcript).toEqual([
      { type: 'message', role: 'user', content: 'Weather in Paris?', time: isoAt(0) },
      {
        type: 'tool_call',
        name: 'get_weather',
        callId: 'call_VSPy',
        arguments: { location: 'Paris' },
        result: 'rainy, 57°F',
        // Not before the reply that asked for it.
        time: isoAt(410),
      },
      { type: 'message', role: 'assistant', content: 'It is rainy in Paris, 57°F.', time: isoAt(1190) },
    ]);
  });

  it("prefers the agent span's token totals over the sum of its chat spans", () => {
    const { root, spans } = semconvTrace();
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });
    expect(record.usage).toEqual({ inputTokens: 160, outputTokens: 65 });
  });

  it('sums the chat spans when the agent span has no totals', () => {
    const { root, spans } = semconvTrace({ rootUsage: false });
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'timeout' });
    expect(record.usage).toEqual({ inputTokens: 150, outputTokens: 60 });
    expect(record.completion).toBe('timeout');
  });

  it('copies a small selection of raw root attributes', () => {
    const { root, spans } = semconvTrace();
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });
    expect(record.attributes).toEqual({
      'service.name': 'support-service',
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.agent.name': 'Support Agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.conversation.id': 'conv-42',
      'evalon.agent.roles': ['customer-facing'],
      'evalon.tenant': 'acme',
    });
  });

  it('reads messages given as structured values (kvlist / array) as well as JSON strings', () => {
    const { root, spans } = semconvTrace();
    const structuredRoot = {
      ...root,
      attributes: {
        ...root.attributes,
        'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Weather in Paris, please?' }] }],
        'gen_ai.output.messages': [
          {
            role: 'assistant',
            parts: [
              { type: 'text', content: 'Rainy, ' },
              { type: 'text', content: '57°F.' },
            ],
            finish_reason: 'stop',
          },
        ],
      },
    };
    const record = buildInteractionRecord({
      root: structuredRoot,
      spans: [structuredRoot, ...spans.slice(1)],
      nested: [],
      completion: 'structural',
    });
    // The invocation span's own messages win over its model calls'.
    expect(record.input[0].parts).toEqual([{ type: 'text', content: 'Weather in Paris, please?' }]);
    expect(record.finalResponseText).toBe('Rainy, 57°F.');
    expect(record.output[0].finishReason).toBe('stop');
  });
});

describe('buildInteractionRecord: legacy semconv (gen_ai.system, prompt_tokens, flattened prompt/completion)', () => {
  it('reads flattened messages, legacy token names and a tool call known only from the completion', () => {
    const { root, spans } = legacySemconvTrace();
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });

    expect(record.agentId).toBe('weather-bot');
    expect(record.agentName).toBe('weather-bot');
    expect(record.provider).toBe('openai');
    expect(record.model).toBe('gpt-3.5-turbo-0125');
    expect(record.roles).toEqual([]);
    expect(record.usage).toEqual({ inputTokens: 31 + 58, outputTokens: 12 + 9 });
    expect(record.input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'How warm is it in Madrid?' }] }]);
    expect(record.finalResponseText).toBe('It is 31 degrees in Madrid.');
    expect(record.output[0].finishReason).toBe('stop');
    // No tool span: the call comes from the completion, its result from the next prompt's tool message.
    expect(record.toolCalls).toEqual([
      { name: 'current_temperature', callId: 'call_m1', arguments: { city: 'Madrid' }, result: '31 degrees' },
    ]);
    expect(record.transcript.map((entry) => entry.type)).toEqual(['message', 'tool_call', 'message']);
  });
});
