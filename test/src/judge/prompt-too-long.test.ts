/**
 * Telling "the prompt is too long for the model" apart from every other failure, on the errors the
 * real Anthropic SDK raises against the scripted model, on the client's `ModelCallError` around
 * them, and on a recorded error replayed by the simulation (a plain error with a status).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicModelClient, isPromptTooLongError } from '../../../src/judge/anthropic-model-client.ts';
import {
  createScriptedModel,
  promptTooLongReply,
  type ScriptedModel,
  type ScriptedReply,
} from '../../../src/testing/scripted-model.ts';

let scripted: ScriptedModel;
beforeAll(async () => {
  scripted = await createScriptedModel();
});
afterAll(() => scripted.close());
beforeEach(() => scripted.reset());

/** What the client throws when the model answers `reply`. */
async function failureFor(reply: ScriptedReply): Promise<unknown> {
  scripted.fixedResponse(reply);
  const model = createAnthropicModelClient({ baseURL: scripted.baseURL, apiKey: 'k', maxRetries: 0 });
  return model.createMessage({ max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('isPromptTooLongError', () => {
  it('recognises a 400 invalid_request_error saying the prompt is too long, any letter case, not retried', async () => {
    const error = await failureFor(promptTooLongReply());
    expect(isPromptTooLongError(error)).toBe(true);
    expect(isPromptTooLongError((error as Error).cause)).toBe(true);
    expect((error as { retryable?: boolean }).retryable).toBe(false);
    expect(scripted.requests).toHaveLength(1);
    expect(
      isPromptTooLongError(await failureFor({ errorStatus: 400, errorMessage: 'Prompt Is Too Long: 1 > 0' })),
    ).toBe(true);
  });

  it('leaves every other failure alone', async () => {
    for (const reply of [
      { errorStatus: 400, errorMessage: 'max_tokens: must be at least 1' },
      { errorStatus: 413, errorMessage: 'prompt is too long' },
      { errorStatus: 429, errorMessage: 'prompt is too long' },
      { errorStatus: 500 },
    ])
      expect(isPromptTooLongError(await failureFor(reply)), JSON.stringify(reply)).toBe(false);
    expect(isPromptTooLongError(new Error('prompt is too long'))).toBe(false);
    expect(isPromptTooLongError(undefined)).toBe(false);
  });

  it('recognises a replayed error: status 400 and the API’s type and message in its text', () => {
    const replayed = Object.assign(
      new Error('model call to m failed: 400 invalid_request_error: prompt is too long: 9 > 8 (not retried)'),
      { status: 400 },
    );
    expect(isPromptTooLongError(replayed)).toBe(true);
    expect(isPromptTooLongError(new Error('judge failed', { cause: replayed }))).toBe(true);
    expect(isPromptTooLongError(Object.assign(new Error('prompt is too long'), { status: 400 }))).toBe(false);
  });
});
