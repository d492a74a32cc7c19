/**
 * Tool results and arguments written as JSON text are parsed, in every shape a dialect carries
 * them (text blocks, tool messages, flattened attributes, tool spans); plain text stays a string.
 */
import { describe, expect, it } from 'vitest';
import { buildInteractionRecord } from '../../../../collector/processor/interactions/build-record.ts';
import { messagesFrom, toParts, unwrapResult } from '../../../../collector/processor/interactions/dialects/messages.ts';
import { legacyMessages } from '../../../../collector/processor/interactions/dialects/semconv.ts';
import { traceBuilder } from '../../../fixtures/dialects/trace-builder.ts';

const order = { orderId: 'A-17', status: 'shipped' };
const orderText = JSON.stringify(order);

describe('unwrapResult: JSON text inside a result', () => {
  it('parses the text of text blocks (Anthropic tool_result content, GenAI text parts) when it is JSON', () => {
    expect(unwrapResult(JSON.stringify([{ type: 'text', text: orderText }]))).toEqual(order);
    expect(unwrapResult([{ type: 'text', content: orderText }])).toEqual(order);
    expect(
      unwrapResult([
        { type: 'text', text: '{"orderId":' },
        { type: 'text', text: '"A-17"}' },
      ]),
    ).toEqual({ orderId: 'A-17' });
  });

  it('parses a Vercel text output that holds JSON', () => {
    expect(unwrapResult({ type: 'text', value: orderText })).toEqual(order);
  });

  it('keeps plain text a string, wherever it comes from', () => {
    expect(unwrapResult([{ type: 'text', text: 'sunny in Paris' }])).toBe('sunny in Paris');
    expect(unwrapResult({ type: 'text', value: 'sunny' })).toBe('sunny');
    expect(unwrapResult('[1, 2, 3] are the numbers')).toBe('[1, 2, 3] are the numbers');
    expect(unwrapResult('{not json')).toBe('{not json');
  });
});

describe('tool messages whose content is JSON text', () => {
  it('reads an OpenAI-style tool message with JSON content as the parsed result', () => {
    expect(messagesFrom([{ role: 'tool', tool_call_id: 'c9', content: orderText }])).toEqual([
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c9', response: order }] },
    ]);
  });

  it('reads a legacy flattened tool message (gen_ai.prompt.N) with JSON content as the parsed result', () => {
    const messages = legacyMessages(
      { 'gen_ai.prompt.0.role': 'tool', 'gen_ai.prompt.0.tool_call_id': 'c9', 'gen_ai.prompt.0.content': orderText },
      'gen_ai.prompt',
      'user',
    );
    expect(messages).toEqual([{ role: 'tool', parts: [{ type: 'tool_call_response', id: 'c9', response: order }] }]);
  });

  it('keeps message content that is a JSON object as text, instead of dropping it', () => {
    expect(toParts(orderText)).toEqual([{ type: 'text', content: orderText }]);
    expect(messagesFrom([{ role: 'assistant', content: orderText }])).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: orderText }] },
    ]);
  });
});

describe('buildInteractionRecord: JSON tool results', () => {
  it("parses an Anthropic SDK tool's JSON text result (a text block holding JSON)", () => {
    const t = traceBuilder({ traceId: 'abcdabcdabcdabcdabcdabcdabcd0001', scopeName: 'com.anthropic.sdk.typescript' });
    const root = t.span({
      name: 'anthropic.messages.tool_runner',
      start: 0,
      end: 100,
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    });
    t.span({
      name: 'anthropic.custom_tool_use get_order',
      parent: root,
      start: 10,
      end: 20,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_order',
        'gen_ai.tool.call.id': 'toolu_1',
        'gen_ai.tool.call.arguments': '{"orderId":"A-17"}',
        'anthropic.tool_result.content': JSON.stringify([{ type: 'text', text: orderText }]),
      },
    });
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.toolCalls).toEqual([
      { name: 'get_order', callId: 'toolu_1', arguments: { orderId: 'A-17' }, result: order },
    ]);
  });

  it('parses JSON text results of semconv tool spans and of tool messages sent back to the model', () => {
    const t = traceBuilder({ traceId: 'abcdabcdabcdabcdabcdabcdabcd0002' });
    const root = t.span({
      name: 'invoke_agent shop',
      start: 0,
      end: 100,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'shop' },
    });
    t.span({
      name: 'chat',
      parent: root,
      start: 1,
      end: 10,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': JSON.stringify([
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: 'c1', name: 'get_order', arguments: '{"orderId":"A-17"}' },
              { type: 'tool_call', id: 'c2', name: 'get_shipping', arguments: { orderId: 'A-17' } },
            ],
          },
        ]),
      },
    });
    t.span({
      name: 'execute_tool get_order',
      parent: root,
      start: 10,
      end: 20,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_order',
        'gen_ai.tool.call.id': 'c1',
        'gen_ai.tool.call.result': JSON.stringify([{ type: 'text', content: orderText }]),
      },
    });
    t.span({
      name: 'chat',
      parent: root,
      start: 30,
      end: 90,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([{ role: 'tool', tool_call_id: 'c2', content: '{"carrier":"UPS"}' }]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'Shipped with UPS.' }] },
        ]),
      },
    });
    const record = buildInteractionRecord({ root, spans: t.spans, nested: [], completion: 'structural' });
    expect(record.toolCalls).toEqual([
      { name: 'get_order', callId: 'c1', arguments: { orderId: 'A-17' }, result: order },
      { name: 'get_shipping', callId: 'c2', arguments: { orderId: 'A-17' }, result: { carrier: 'UPS' } },
    ]);
  });
});
