import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicModelClient } from '../../../src/judge/anthropic-model-client.ts';
import {
  addExtraCaCertificates,
  DEFAULT_MODEL,
  modelSettingsFromEnv,
  stripBedrockSuffix,
} from '../../../src/judge/model-settings.ts';
import { createScriptedModel, type ScriptedModel } from '../../../src/testing/scripted-model.ts';

describe('model settings and client', () => {
  let scripted: ScriptedModel;
  beforeAll(async () => {
    scripted = await createScriptedModel();
  });
  afterAll(() => scripted.close());

  it(
    'reads the model environment variables (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, EVALON_MODEL, ' +
      'EVALON_CA_CERTS), stripping a /bedrock suffix',
    () => {
      expect(modelSettingsFromEnv({})).toEqual({
        baseURL: 'https://api.anthropic.com',
        apiKey: '',
        model: DEFAULT_MODEL,
      });
      expect(
        modelSettingsFromEnv({
          ANTHROPIC_BASE_URL: 'https://proxy.example/bedrock',
          ANTHROPIC_API_KEY: 'k',
          EVALON_MODEL: 'm',
          EVALON_CA_CERTS: '/etc/ca.pem',
        }),
      ).toEqual({
        baseURL: 'https://proxy.example',
        apiKey: 'k',
        model: 'm',
        caCertsPath: '/etc/ca.pem',
      });
      expect(stripBedrockSuffix('https://x/bedrock/')).toBe('https://x');
      expect(stripBedrockSuffix('https://x/bedrock-runtime')).toBe('https://x/bedrock-runtime');
    },
  );

  it('ignores a CA bundle that does not exist', () => {
    expect(addExtraCaCertificates('/nonexistent/ca.pem')).toBe(false);
  });

  it(
    'talks to a Messages endpoint through the SDK with the key, the default model and only text and tool_use ' +
      'blocks',
    async () => {
      scripted.reset().fixedResponse({ text: 'hi', toolUse: [{ name: 't', input: { a: 1 }, id: 'x' }] });
      const client = createAnthropicModelClient({
        env: {
          ANTHROPIC_BASE_URL: `${scripted.baseURL}/bedrock`,
          ANTHROPIC_API_KEY: 'secret',
          EVALON_MODEL: 'claude-test',
        },
        maxRetries: 0,
      });
      const response = await client.createMessage({ max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] });
      expect(response.content).toEqual([
        { type: 'text', text: 'hi' },
        { type: 'tool_use', id: 'x', name: 't', input: { a: 1 } },
      ]);
      expect(response.stop_reason).toBe('tool_use');
      expect(scripted.requests[0].body.model).toBe('claude-test');
      expect(JSON.stringify(scripted.requests[0].headers)).toContain('secret');
    },
  );
});
