import { describe, expect, it } from 'vitest';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { isoAt } from '../../../fixtures/dialects/trace-builder.ts';
import { vercelTrace } from '../../../fixtures/dialects/vercel.ts';

describe('buildInteractionRecord: Vercel AI SDK', () => {
  it('builds the record from ai.generateText, its doGenerate steps and ai.toolCall', () => {
    const { root, spans } = vercelTrace();
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });

    expect(record).toMatchObject({
      agentId: 'trip-agent',
      agentName: 'trip-agent',
      conversationId: 'sess-v',
      provider: 'openai.chat',
      model: 'gpt-4o',
      failed: false,
      finalResponseText: 'Berlin is cloudy, 12°C.',
    });
    // ai.prompt without its system part.
    expect(record.input).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is the weather in Berlin?' }] },
    ]);
    expect(record.output).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Berlin is cloudy, 12°C.' }], finishReason: 'stop' },
    ]);
    expect(record.toolCalls).toEqual([
      { name: 'weather', callId: 'call_b1', arguments: { city: 'Berlin' }, result: { temperature: 12, sky: 'cloudy' } },
    ]);
    expect(record.transcript).toEqual([
      { type: 'message', role: 'user', content: 'What is the weather in Berlin?', time: isoAt(0) },
      {
        type: 'tool_call',
        name: 'weather',
        callId: 'call_b1',
        arguments: { city: 'Berlin' },
        result: { temperature: 12, sky: 'cloudy' },
        time: isoAt(610),
      },
      { type: 'message', role: 'assistant', content: 'Berlin is cloudy, 12°C.', time: isoAt(1490) },
    ]);
  });

  it('never double counts tokens: totals on the root, per-step counts in two attribute families', () => {
    const { root, spans } = vercelTrace();
    expect(buildInteractionRecord({ root, spans, nested: [], completion: 'structural' }).usage).toEqual({
      inputTokens: 300,
      outputTokens: 45,
    });
    const withoutTotals = vercelTrace({ rootUsage: false });
    expect(buildInteractionRecord({ ...withoutTotals, nested: [], completion: 'structural' }).usage).toEqual({
      inputTokens: 120 + 180,
      outputTokens: 25 + 20,
    });
  });

  it('takes tool results from the tool-result prompt parts when the ai.toolCall span recorded none', () => {
    const { root, spans } = vercelTrace();
    const withoutResult = spans.map((span) => {
      if (span.name !== 'ai.toolCall') return span;
      const { 'ai.toolCall.result': _, ...attributes } = span.attributes;
      return { ...span, attributes };
    });
    const record = buildInteractionRecord({ root, spans: withoutResult, nested: [], completion: 'structural' });
    expect(record.toolCalls[0].result).toEqual({ temperature: 12, sky: 'cloudy' });
  });
});
