import { describe, expect, it } from 'vitest';
import { encodeMessages, toMessages, type AgentMessage } from '../../../src/instrumentation/agent-messages.ts';

describe('agent messages', () => {
  it('turns a text into one message of the given role', () => {
    expect(toMessages('hi', 'user')).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]);
    expect(toMessages('bye', 'assistant')).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'bye' }] }]);
  });

  it('keeps semconv messages (a list or a single one) and refuses anything else', () => {
    const message: AgentMessage = { role: 'assistant', parts: [{ type: 'text', content: 'x' }] };
    expect(toMessages([message], 'assistant')).toEqual([message]);
    expect(toMessages(message, 'assistant')).toEqual([message]);
    expect(toMessages([], 'assistant')).toBeUndefined();
    expect(toMessages([{ role: 'user', content: 'no parts' }], 'user')).toBeUndefined();
    expect(toMessages({ text: 'x' }, 'assistant')).toBeUndefined();
    expect(toMessages(undefined, 'assistant')).toBeUndefined();
    expect(toMessages(42, 'assistant')).toBeUndefined();
  });

  it('encodes messages as JSON when they fit', () => {
    const messages: AgentMessage[] = [{ role: 'user', parts: [{ type: 'text', content: 'héllo' }] }];
    expect(encodeMessages(messages, 1000)).toEqual({ json: JSON.stringify(messages), truncated: false });
  });

  it('keeps the most recent messages that fit the limit', () => {
    const messages: AgentMessage[] = Array.from({ length: 10 }, (_, i) => ({
      role: 'user',
      parts: [{ type: 'text', content: String(i).repeat(100) }],
    }));
    const encoded = encodeMessages(messages, 500)!;
    expect(encoded.truncated).toBe(true);
    expect(Buffer.byteLength(encoded.json)).toBeLessThanOrEqual(500);
    const kept = JSON.parse(encoded.json) as AgentMessage[];
    expect(kept.at(-1)).toEqual(messages.at(-1));
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.length).toBeLessThan(10);
  });

  it('shortens the texts of a last message too large on its own, counting UTF-8 bytes', () => {
    const encoded = encodeMessages(
      [{ role: 'assistant', parts: [{ type: 'text', content: '€'.repeat(5000) }] }],
      1200,
    )!;
    expect(encoded.truncated).toBe(true);
    expect(Buffer.byteLength(encoded.json)).toBeLessThanOrEqual(1200);
    expect(JSON.parse(encoded.json)[0].parts[0].content).toMatch(/^€+…$/);
  });

  it('leaves out bulky tool arguments when shortening', () => {
    const big = { blob: 'z'.repeat(5000) };
    const encoded = encodeMessages(
      [
        {
          role: 'assistant',
          parts: [
            { type: 'text', content: 'ok' },
            { type: 'tool_call', id: 'c', name: 'f', arguments: big },
          ],
        },
      ],
      1000,
    )!;
    expect(JSON.parse(encoded.json)[0].parts).toEqual([
      { type: 'text', content: 'ok' },
      { type: 'tool_call', id: 'c', name: 'f' },
    ]);
  });

  it('gives up on values JSON cannot hold, without throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(
      encodeMessages([{ role: 'tool', parts: [{ type: 'tool_call_response', response: cyclic }] }], 1000),
    ).toBeUndefined();
    expect(
      encodeMessages([{ role: 'tool', parts: [{ type: 'tool_call_response', response: 10n }] }], 1000),
    ).toBeUndefined();
  });
});
