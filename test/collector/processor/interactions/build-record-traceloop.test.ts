import { describe, expect, it } from 'vitest';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { traceloopTrace } from '../../../fixtures/dialects/traceloop.ts';
import { isoAt } from '../../../fixtures/dialects/trace-builder.ts';

describe('buildInteractionRecord: OpenLLMetry / Traceloop', () => {
  it('reads the agent span, legacy LLM spans and a decorated tool span', () => {
    const { root, spans } = traceloopTrace();
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });

    expect(record).toMatchObject({
      agentId: 'planner',
      agentName: 'planner',
      conversationId: 'sess-rome',
      provider: 'openai',
      model: 'gpt-4o-2024-08-06',
      failed: false,
      finalResponseText: 'Visit the Colosseum in the morning; it will be sunny.',
      usage: { inputTokens: 130, outputTokens: 43 },
    });
    expect(record.input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Plan a day in Rome' }] }]);
    // The decorator's {"args":[],"kwargs":{"city":"Rome"}} becomes the keyword arguments.
    expect(record.toolCalls).toEqual([
      {
        name: 'weather_lookup',
        callId: 'call_w1',
        arguments: { city: 'Rome' },
        result: { forecast: 'sunny', high: 24 },
      },
    ]);
    expect(record.transcript[1]).toMatchObject({ type: 'tool_call', name: 'weather_lookup', time: isoAt(810) });
    expect(record.attributes).toMatchObject({ 'traceloop.span.kind': 'agent', 'traceloop.entity.name': 'planner' });
  });

  it("takes the agent's own entity input and output when its LLM spans record no content", () => {
    const { root } = traceloopTrace();
    const record = buildInteractionRecord({ root, spans: [root], nested: [], completion: 'structural' });
    expect(record.input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Plan a day in Rome' }] }]);
    expect(record.finalResponseText).toBe('Visit the Colosseum in the morning; it will be sunny.');
  });
});
