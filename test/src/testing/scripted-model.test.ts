import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';

describe('scripted model', () => {
  let model: ScriptedModel | undefined;
  afterEach(async () => {
    await model?.close();
  });

  it('answers the real SDK with queued replies, then the fixed response', async () => {
    model = await createScriptedModel();
    model.enqueue({ toolUse: [{ name: 'lookup', input: { q: 'x' } }] }).fixedResponse('done');
    const client = new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 });
    const first = await client.messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content[0]).toMatchObject({ type: 'tool_use', name: 'lookup', input: { q: 'x' } });
    const second = await client.messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(second.content[0]).toMatchObject({ type: 'text', text: 'done' });
    expect(model.requests).toHaveLength(2);
  });

  it('streams replies as server-sent events the SDK assembles', async () => {
    model = await createScriptedModel();
    model.fixedResponse({ text: 'streamed', toolUse: [{ name: 't', input: { a: 1 } }] });
    const client = new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 });
    const message = await client.messages
      .stream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(message.content).toMatchObject([
      { type: 'text', text: 'streamed' },
      { type: 'tool_use', name: 't', input: { a: 1 } },
    ]);
  });

  it('injects errors that the SDK retries, honouring retry-after', async () => {
    model = await createScriptedModel();
    model.enqueue({ errorStatus: 529, retryAfter: 0 }, { errorStatus: 429, retryAfter: 0 }).fixedResponse('recovered');
    const client = new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 3 });
    const message = await client.messages.create({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content[0]).toMatchObject({ text: 'recovered' });
    expect(model.requests).toHaveLength(3);
  });

  it('answers malformed JSON when asked to', async () => {
    model = await createScriptedModel();
    model.fixedResponse({ malformed: true });
    const client = new Anthropic({ apiKey: 'test', baseURL: model.baseURL, maxRetries: 0 });
    await expect(
      client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toThrow();
  });
});
