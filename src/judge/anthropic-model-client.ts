/**
 * A ModelClient over the official Anthropic SDK. Transient errors (429, 5xx, connection errors)
 * are retried by the SDK with exponential backoff, honouring `retry-after`.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { JsonObject } from './json-value.ts';
import type { ModelClient, ModelRequest, ModelResponse, ModelTextBlock, ModelToolUseBlock } from './model-client.ts';
import { addExtraCaCertificates, modelSettingsFromEnv, type ModelSettings } from './model-settings.ts';

export const DEFAULT_MODEL_MAX_RETRIES = 3;

export interface AnthropicModelClientOptions extends Partial<ModelSettings> {
  maxRetries?: number;
  /** Per-request timeout, milliseconds (the SDK's default otherwise). */
  timeoutMs?: number;
  /** Read unset settings from this environment (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export function createAnthropicModelClient(options: AnthropicModelClientOptions = {}): ModelClient {
  const settings = { ...modelSettingsFromEnv(options.env), ...definedOnly(options) };
  if (settings.caCertsPath) addExtraCaCertificates(settings.caCertsPath);
  const sdk = new Anthropic({
    apiKey: settings.apiKey || 'unset',
    baseURL: settings.baseURL,
    maxRetries: options.maxRetries ?? DEFAULT_MODEL_MAX_RETRIES,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  });
  return {
    defaultModel: settings.model,
    async createMessage(request: ModelRequest): Promise<ModelResponse> {
      const message = await sdk.messages.create({ ...request, model: request.model ?? settings.model } as never);
      const reply = message as unknown as { id: string; model: string; content: Array<Record<string, unknown>>; stop_reason: string | null; usage: { input_tokens: number | null; output_tokens: number } };
      return {
        id: reply.id,
        model: reply.model,
        content: reply.content.flatMap((block): Array<ModelTextBlock | ModelToolUseBlock> => {
          if (block.type === 'text') return [{ type: 'text', text: String(block.text ?? '') }];
          if (block.type === 'tool_use') {
            return [{ type: 'tool_use', id: String(block.id), name: String(block.name), input: (block.input ?? {}) as JsonObject }];
          }
          return [];
        }),
        stop_reason: reply.stop_reason,
        usage: { input_tokens: reply.usage?.input_tokens ?? 0, output_tokens: reply.usage?.output_tokens ?? 0 },
      };
    },
  };
}

function definedOnly(options: AnthropicModelClientOptions): Partial<ModelSettings> {
  const out: Partial<ModelSettings> = {};
  if (options.baseURL !== undefined) out.baseURL = options.baseURL;
  if (options.apiKey !== undefined) out.apiKey = options.apiKey;
  if (options.model !== undefined) out.model = options.model;
  if (options.caCertsPath !== undefined) out.caCertsPath = options.caCertsPath;
  return out;
}
