import { describe, expect, it } from 'vitest';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { semconvTrace } from '../../../fixtures/dialects/semconv.ts';
import { isoAt, traceBuilder } from '../../../fixtures/dialects/trace-builder.ts';

const CONTENT_KEYS = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
];

describe('buildInteractionRecord: failures', () => {
  function failedAgent(
    status: { code: number; message?: string },
    attributes = {},
    events: Array<{ name: string; at: number; attributes?: Record<string, string> }> = [],
  ) {
    const t = traceBuilder({ traceId: '99998888777766665555444433332222' });
    const root = t.span({
      name: 'invoke_agent billing-agent',
      start: 0,
      end: 50,
      status,
      events,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'billing-agent', ...attributes },
    });
    return buildInteractionRecord({ root, spans: [root], nested: [], completion: 'structural' });
  }

  it('marks a span with status ERROR failed, summarised by its status message', () => {
    const record = failedAgent(
      { code: 2, message: 'rate limited by the provider' },
      { 'error.type': 'RateLimitError' },
    );
    expect(record.failed).toBe(true);
    expect(record.failureSummary).toBe('rate limited by the provider');
  });

  it('marks a span with error.type failed even without an ERROR status, summarised by the type', () => {
    const record = failedAgent({ code: 0 }, { 'error.type': 'guardrail_blocked' });
    expect(record.failed).toBe(true);
    expect(record.failureSummary).toBe('guardrail_blocked');
  });

  it("summarises an ERROR without message or type by its exception event's message", () => {
    const record = failedAgent({ code: 2 }, {}, [
      {
        name: 'exception',
        at: 40,
        attributes: { 'exception.type': 'TypeError', 'exception.message': 'cannot read id of undefined' },
      },
    ]);
    expect(record.failureSummary).toBe('cannot read id of undefined');
  });

  it('leaves a successful interaction without a summary', () => {
    const record = failedAgent({ code: 1 });
    expect(record.failed).toBe(false);
    expect(record.failureSummary).toBeUndefined();
    expect(record.finalResponseText).toBe('');
  });

  it('records a failed tool with its error', () => {
    const { root, spans } = semconvTrace();
    const failing = spans.map((span) =>
      span.name.startsWith('execute_tool')
        ? {
            ...span,
            status: { code: 2, message: 'weather service unavailable' },
            attributes: { ...span.attributes, 'error.type': 'ServiceUnavailable' },
          }
        : span,
    );
    const record = buildInteractionRecord({ root, spans: failing, nested: [], completion: 'structural' });
    expect(record.failed).toBe(false);
    expect(record.toolCalls[0].error).toBe('weather service unavailable');
  });
});

describe('buildInteractionRecord: metadata-only spans (no content captured)', () => {
  it('still builds a valid record with empty messages, tool calls by name and the token counts', () => {
    const { spans } = semconvTrace({ rootUsage: false });
    const stripped = spans.map((span) => ({
      ...span,
      attributes: Object.fromEntries(Object.entries(span.attributes).filter(([key]) => !CONTENT_KEYS.includes(key))),
    }));
    const record = buildInteractionRecord({ root: stripped[0], spans: stripped, nested: [], completion: 'structural' });
    expect(record.input).toEqual([]);
    expect(record.output).toEqual([]);
    expect(record.finalResponseText).toBe('');
    expect(record.toolCalls).toEqual([{ name: 'get_weather', callId: 'call_VSPy' }]);
    expect(record.transcript).toEqual([
      { type: 'tool_call', name: 'get_weather', callId: 'call_VSPy', time: isoAt(410) },
    ]);
    expect(record.usage).toEqual({ inputTokens: 150, outputTokens: 60 });
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);
  });
});

describe('buildInteractionRecord: nested agents', () => {
  it('lists a nested agent as an agent_call entry, leaves its subtree out, and carries the flow id', () => {
    const t = traceBuilder({ traceId: '2222333344445555666677778888aaaa', resource: { 'service.name': 'desk' } });
    const root = t.span({
      name: 'invoke_agent support-agent',
      start: 0,
      end: 1000,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.id': 'support-agent',
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'Refund order 7?' }] },
        ]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'Refunded.' }] },
        ]),
      },
    });
    const tool = t.span({
      name: 'execute_tool ask_billing',
      parent: root,
      start: 100,
      end: 800,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'ask_billing',
        'gen_ai.tool.call.id': 'call_1',
      },
    });
    const billing = t.span({
      name: 'invoke_agent billing-agent',
      parent: tool,
      start: 120,
      end: 780,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.id': 'billing-agent',
        'gen_ai.usage.input_tokens': 999,
      },
    });
    const billingInteraction = `${billing.traceId}-${billing.spanId}`;

    const record = buildInteractionRecord({
      root,
      // As the assembler hands them over: the nested agent's subtree is not among the spans.
      spans: [root, tool],
      nested: [{ span: billing, interactionId: billingInteraction, agentId: 'billing-agent' }],
      flowId: 'aaaa-bbbb',
      completion: 'structural',
    });
    expect(record.flowId).toBe('aaaa-bbbb');
    expect(record.usage).toEqual({});
    expect(record.transcript).toEqual([
      { type: 'message', role: 'user', content: 'Refund order 7?', time: isoAt(0) },
      { type: 'tool_call', name: 'ask_billing', callId: 'call_1', time: isoAt(100) },
      { type: 'agent_call', agentId: 'billing-agent', interactionId: billingInteraction, time: isoAt(120) },
      // No model call recorded output: the invocation's own output closes the transcript.
      { type: 'message', role: 'assistant', content: 'Refunded.', time: isoAt(1000) },
    ]);
    expect(record.finalResponseText).toBe('Refunded.');
  });

  it('ignores a nested invocation span passed among the spans by mistake', () => {
    const t = traceBuilder({ traceId: '2222333344445555666677778888bbbb' });
    const root = t.span({
      name: 'invoke_agent a',
      start: 0,
      end: 10,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'a' },
    });
    const other = t.span({
      name: 'invoke_agent b',
      parent: root,
      start: 1,
      end: 9,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'b', 'gen_ai.usage.input_tokens': 5 },
    });
    const record = buildInteractionRecord({
      root,
      spans: [root, other],
      nested: [{ span: other, interactionId: 'x', agentId: 'b' }],
      completion: 'structural',
    });
    expect(record.usage).toEqual({});
    expect(record.transcript).toEqual([{ type: 'agent_call', agentId: 'b', interactionId: 'x', time: isoAt(1) }]);
  });
});

describe('buildInteractionRecord: Anthropic SDK spans that are not model calls', () => {
  it('does not take a count_tokens span, which names a model, for the last model call', () => {
    const t = traceBuilder({ traceId: '3333444455556666777788889999aaaa', scopeName: 'com.anthropic.sdk.typescript' });
    const root = t.span({
      name: 'anthropic.messages.tool_runner',
      start: 0,
      end: 100,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-x',
      },
    });
    t.span({
      name: 'anthropic.messages.create',
      parent: root,
      start: 1,
      end: 50,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'claude-x',
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
        'anthropic.message.stop_reason': 'end_turn',
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }] }]),
      },
    });
    t.span({
      name: 'anthropic.messages.count_tokens',
      parent: root,
      start: 60,
      end: 90,
      attributes: { 'gen_ai.request.model': 'claude-x', 'anthropic.message.count_tokens.input_tokens': 999 },
    });
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.finalResponseText).toBe('Hello!');
    expect(record.output[0].finishReason).toBe('end_turn');
    expect(record.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
  });
});
