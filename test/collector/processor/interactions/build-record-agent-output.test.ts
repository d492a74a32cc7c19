/**
 * An agent that records its whole turn on its own invocation span (`gen_ai.output.messages`: tool
 * calls, tool results, answer) and no model-call span, like the plain-fetch example: tool results
 * come from its `tool_call_response` parts, each call is listed once, and the transcript keeps the
 * order the messages state.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../../src/model/records.ts';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { isoAt, traceBuilder, type TraceBuilder } from '../../../fixtures/dialects/trace-builder.ts';

const forecast = { city: 'Lisbon', saturday: 'sunny', highC: 24 };
const ANSWER = 'Saturday looks sunny in Lisbon: try the hiking trail.';

/** The plain-fetch agent's turn: ask for the forecast, get it, answer. */
function plainFetchTurn(firstParts: Message['parts'] = []): Message[] {
  return [
    {
      role: 'assistant',
      parts: [...firstParts, { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: { city: 'Lisbon' } }],
    },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: 'toolu_1', response: forecast }] },
    { role: 'assistant', parts: [{ type: 'text', content: ANSWER }] },
  ];
}

function agentTrace(
  traceId: string,
  output: Message[],
  input?: Message[],
): { t: TraceBuilder; root: ReturnType<TraceBuilder['span']> } {
  const t = traceBuilder({ traceId });
  const root = t.span({
    name: 'invoke_agent activity-agent',
    start: 0,
    end: 1000,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'activity-agent',
      'gen_ai.input.messages': JSON.stringify(
        input ?? [{ role: 'user', parts: [{ type: 'text', content: 'Weekend in Lisbon?' }] }],
      ),
      'gen_ai.output.messages': JSON.stringify(output),
    },
  });
  return { t, root };
}

const question = { type: 'message', role: 'user', content: 'Weekend in Lisbon?', time: isoAt(0) };
const answer = { type: 'message', role: 'assistant', content: ANSWER, time: isoAt(1000) };

describe("buildInteractionRecord: tool results from the agent span's own messages", () => {
  it('fills a call asked for in gen_ai.output.messages with the tool_call_response that follows it', () => {
    const { t, root } = agentTrace('cccc0000cccc0000cccc0000cccc0001', plainFetchTurn());
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.toolCalls).toEqual([
      { name: 'get_weather', callId: 'toolu_1', arguments: { city: 'Lisbon' }, result: forecast },
    ]);
    expect(record.finalResponseText).toBe(ANSWER);
  });

  it('parses a tool_call_response given as JSON text', () => {
    const turn = plainFetchTurn();
    turn[1] = {
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: 'toolu_1', response: JSON.stringify(forecast) }],
    };
    const { t, root } = agentTrace('cccc0000cccc0000cccc0000cccc0002', turn);
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.toolCalls[0].result).toEqual(forecast);
  });

  it('fills a tool span without a result from the agent output, listing the call once', () => {
    const { t, root } = agentTrace('cccc0000cccc0000cccc0000cccc0003', plainFetchTurn());
    t.span({
      name: 'execute_tool get_weather',
      parent: root,
      start: 300,
      end: 400,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'toolu_1',
      },
    });
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.toolCalls).toEqual([
      { name: 'get_weather', callId: 'toolu_1', arguments: { city: 'Lisbon' }, result: forecast },
    ]);
    expect(record.transcript).toEqual([
      question,
      {
        type: 'tool_call',
        name: 'get_weather',
        callId: 'toolu_1',
        arguments: { city: 'Lisbon' },
        result: forecast,
        time: isoAt(300),
      },
      answer,
    ]);
  });

  it("keeps a tool span's own result over the agent output's", () => {
    const { t, root } = agentTrace('cccc0000cccc0000cccc0000cccc0004', plainFetchTurn());
    t.span({
      name: 'execute_tool get_weather',
      parent: root,
      start: 300,
      end: 400,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'toolu_1',
        'gen_ai.tool.call.result': '{"city":"Lisbon","saturday":"sunny","highC":25}',
      },
    });
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.toolCalls).toEqual([
      {
        name: 'get_weather',
        callId: 'toolu_1',
        arguments: { city: 'Lisbon' },
        result: { city: 'Lisbon', saturday: 'sunny', highC: 25 },
      },
    ]);
  });

  it('fills results from tool_call_response parts in the agent span input too', () => {
    // A resumed turn: the call was asked for in the output, its result handed back in the input.
    const input: Message[] = [
      { role: 'user', parts: [{ type: 'text', content: 'Weekend in Lisbon?' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'toolu_1', response: '{"city":"Lisbon"}' }] },
    ];
    const output: Message[] = [
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: { city: 'Lisbon' } }],
      },
      { role: 'assistant', parts: [{ type: 'text', content: ANSWER }] },
    ];
    const { t, root } = agentTrace('cccc0000cccc0000cccc0000cccc0005', output, input);
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.toolCalls).toEqual([
      { name: 'get_weather', callId: 'toolu_1', arguments: { city: 'Lisbon' }, result: { city: 'Lisbon' } },
    ]);
  });
});

describe("buildInteractionRecord: transcript order of the agent span's own messages", () => {
  it(
    'places a tool call before the final answer, as the messages state, and does not repeat its result as a ' +
      'message',
    () => {
      const { t, root } = agentTrace('cccc0000cccc0000cccc0000cccc0006', plainFetchTurn());
      const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
      expect(record.transcript).toEqual([
        question,
        {
          type: 'tool_call',
          name: 'get_weather',
          callId: 'toolu_1',
          arguments: { city: 'Lisbon' },
          result: forecast,
          time: isoAt(1000),
        },
        answer,
      ]);
    },
  );

  it('keeps the stated order across several rounds, text before a call included', () => {
    const output: Message[] = [
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Let me check the forecast.' },
          { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: { city: 'Lisbon' } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'toolu_1', response: forecast }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'toolu_2', name: 'get_events', arguments: { city: 'Lisbon' } }],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'toolu_2', response: 'a street market on Saturday' }] },
      { role: 'assistant', parts: [{ type: 'text', content: ANSWER }] },
    ];
    const { t, root } = agentTrace('cccc0000cccc0000cccc0000cccc0007', output);
    // The second tool ran as a span; the first one did not.
    t.span({
      name: 'execute_tool get_events',
      parent: root,
      start: 600,
      end: 700,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_events',
        'gen_ai.tool.call.id': 'toolu_2',
      },
    });
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(
      record.transcript.map((entry) =>
        entry.type === 'tool_call'
          ? `tool:${entry.name}`
          : entry.type === 'message'
            ? `${entry.role}:${entry.content}`
            : entry.type,
      ),
    ).toEqual([
      'user:Weekend in Lisbon?',
      'assistant:Let me check the forecast.',
      'tool:get_weather',
      'tool:get_events',
      `assistant:${ANSWER}`,
    ]);
    expect(record.toolCalls.map((call) => [call.name, call.result])).toEqual([
      ['get_weather', forecast],
      ['get_events', 'a street market on Saturday'],
    ]);
    // Times never run backwards, and never put a step after the time it is known to have happened by.
    const times = record.transcript.map((entry) => entry.time!);
    expect([...times].sort()).toEqual(times);
    expect(record.transcript[3].time).toBe(isoAt(600));
  });

  it('keeps a tool message whose response matches no call of this interaction', () => {
    const output: Message[] = [
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'toolu_elsewhere', response: 'ok' }] },
      { role: 'assistant', parts: [{ type: 'text', content: ANSWER }] },
    ];
    const { t, root } = agentTrace('cccc0000cccc0000cccc0000cccc0008', output);
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.toolCalls).toEqual([]);
    expect(record.transcript.map((entry) => entry.type === 'message' && entry.role)).toEqual([
      'user',
      'tool',
      'assistant',
    ]);
  });
});
