import { describe, expect, it } from 'vitest';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { openInferenceTrace } from '../../../fixtures/dialects/openinference.ts';
import { isoAt } from '../../../fixtures/dialects/trace-builder.ts';

describe('buildInteractionRecord: OpenInference', () => {
  it('reads flattened llm.input_messages / llm.output_messages, TOOL spans and token counts', () => {
    const { root, spans } = openInferenceTrace();
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });

    expect(record).toMatchObject({
      agentId: 'research-agent',
      agentName: 'research-agent',
      conversationId: 'sess-7',
      model: 'gpt-4o-mini',
      provider: 'openai',
      failed: false,
      finalResponseText: 'Lyon has about 520,000 inhabitants.',
      usage: { inputTokens: 90, outputTokens: 25 },
      durationMs: 2000,
    });
    expect(record.input).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is the population of Lyon?' }] },
    ]);
    // The TOOL span has no call id: it is matched to the requested call by name, and listed once.
    expect(record.toolCalls).toEqual([
      {
        name: 'search',
        callId: 'call_x1',
        arguments: { query: 'Lyon population' },
        result: 'Lyon: 522,250 inhabitants (2021 census)',
      },
    ]);
    expect(record.transcript).toEqual([
      { type: 'message', role: 'user', content: 'What is the population of Lyon?', time: isoAt(0) },
      {
        type: 'tool_call',
        name: 'search',
        callId: 'call_x1',
        arguments: { query: 'Lyon population' },
        result: 'Lyon: 522,250 inhabitants (2021 census)',
        time: isoAt(710),
      },
      { type: 'message', role: 'assistant', content: 'Lyon has about 520,000 inhabitants.', time: isoAt(1980) },
    ]);
    expect(record.attributes).toMatchObject({
      'openinference.span.kind': 'AGENT',
      'agent.name': 'research-agent',
      'session.id': 'sess-7',
    });
  });

  it('falls back to input.value / output.value when no LLM span records messages', () => {
    const { root } = openInferenceTrace();
    const record = buildInteractionRecord({ root, spans: [root], nested: [], completion: 'structural' });
    expect(record.input).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is the population of Lyon?' }] },
    ]);
    expect(record.finalResponseText).toBe('Lyon has about 520,000 inhabitants.');
    expect(record.transcript.map((entry) => entry.type === 'message' && entry.role)).toEqual(['user', 'assistant']);
    expect(record.usage).toEqual({});
  });

  it('names the agent after the AGENT span when it has no agent.name', () => {
    const { root, spans } = openInferenceTrace();
    const { 'agent.name': _, ...attributes } = root.attributes;
    const unnamed = { ...root, attributes };
    const record = buildInteractionRecord({
      root: unnamed,
      spans: [unnamed, ...spans.slice(1)],
      nested: [],
      completion: 'structural',
    });
    expect(record.agentId).toBe('AgentExecutor');
    expect(record.agentName).toBe('AgentExecutor');
  });

  it('records a failed AGENT span with the exception message as its summary', () => {
    const { root, spans } = openInferenceTrace({ failed: true });
    const record = buildInteractionRecord({ root, spans, nested: [], completion: 'structural' });
    expect(record.failed).toBe(true);
    expect(record.failureSummary).toBe('Could not parse LLM output');
    // The last model call asked for a tool: there is no final text.
    expect(record.finalResponseText).toBe('');
    expect(record.toolCalls).toHaveLength(1);
  });
});
