import { describe, expect, it } from 'vitest';
import {
  messagesFrom,
  partsFromContent,
  textOf,
  unwrapResult,
  withFinishReasons,
} from '../../../../collector/processor/interactions/dialects/messages.ts';

describe('messagesFrom', () => {
  const messages = [
    { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
    {
      role: 'assistant',
      parts: [{ type: 'tool_call', id: 'c1', name: 'get_weather', arguments: '{"location":"Paris"}' }],
    },
  ];

  it('reads a JSON string and the structured (kvlist / array) value alike', () => {
    const expected = [
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'c1', name: 'get_weather', arguments: { location: 'Paris' } }],
      },
    ];
    expect(messagesFrom(JSON.stringify(messages))).toEqual(expected);
    expect(messagesFrom(messages)).toEqual(expected);
  });

  it('accepts tool results under `response` (schema) and `result` (registry example)', () => {
    const parsed = messagesFrom([
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'a', response: 'rainy' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'b', result: 'sunny' }] },
    ]);
    expect(parsed?.map((message) => message.parts[0])).toEqual([
      { type: 'tool_call_response', id: 'a', response: 'rainy' },
      { type: 'tool_call_response', id: 'b', response: 'sunny' },
    ]);
  });

  it('reads finish_reason in the message, else from gen_ai.response.finish_reasons', () => {
    const inMessage = messagesFrom([{ role: 'assistant', parts: [], finish_reason: 'length' }])!;
    expect(withFinishReasons(inMessage, ['stop'])[0].finishReason).toBe('length');
    const outside = messagesFrom([{ role: 'assistant', parts: [] }])!;
    expect(withFinishReasons(outside, ['stop'])[0].finishReason).toBe('stop');
  });

  it('accepts OpenAI-style messages: content strings, tool_calls and tool messages', () => {
    expect(
      messagesFrom([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c9', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c9', content: '42 apples' },
      ]),
    ).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c9', name: 'f', arguments: { a: 1 } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c9', response: '42 apples' }] },
    ]);
  });

  it('is undefined for a value that is not a message list, and never throws on bad JSON', () => {
    expect(messagesFrom(undefined)).toBeUndefined();
    expect(messagesFrom('[not json')).toBeUndefined();
    expect(messagesFrom('plain text')).toBeUndefined();
    expect(messagesFrom({ role: 'user' })).toBeUndefined();
  });
});

describe('partsFromContent', () => {
  it('reads Anthropic content blocks written as JSON text (OpenLLMetry rich content)', () => {
    const content = JSON.stringify([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
      { type: 'tool_result', tool_use_id: 'toolu_0', content: [{ type: 'text', text: 'found' }] },
    ]);
    expect(partsFromContent(content)).toEqual([
      { type: 'text', content: 'Let me check.' },
      { type: 'tool_call', id: 'toolu_1', name: 'lookup', arguments: { q: 'x' } },
      { type: 'tool_call_response', id: 'toolu_0', response: 'found' },
    ]);
  });

  it('keeps text that merely looks like JSON as text', () => {
    expect(partsFromContent('[1, 2, 3] are the numbers')).toEqual([
      { type: 'text', content: '[1, 2, 3] are the numbers' },
    ]);
    expect(partsFromContent('[1,2,3]')).toEqual([{ type: 'text', content: '[1,2,3]' }]);
  });
});

describe('unwrapResult and textOf', () => {
  it('turns text blocks into their text and Vercel outputs into their value', () => {
    expect(unwrapResult('[{"type":"text","text":"sunny in Paris"}]')).toBe('sunny in Paris');
    expect(unwrapResult({ type: 'json', value: { t: 12 } })).toEqual({ t: 12 });
    expect(unwrapResult({ type: 'other', value: 1 })).toEqual({ type: 'other', value: 1 });
    expect(unwrapResult('12:00 CET')).toBe('12:00 CET');
  });

  it('joins only the text parts', () => {
    expect(
      textOf([
        { type: 'reasoning', content: 'hmm' },
        { type: 'text', content: 'A' },
        { type: 'text', content: 'B' },
      ]),
    ).toBe('AB');
  });
});
