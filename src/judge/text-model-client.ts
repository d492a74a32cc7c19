/**
 * Any text-in, text-out model as a ModelClient: `complete(prompt)` and an optional
 * `completeChat(system, messages)` that defaults to flattening the chat into one prompt.
 * Text only: tool definitions are not passed on, so an agent on such a model never calls tools;
 * participants, event sources and the judge (which accepts JSON text) work as usual.
 */
import { compactJson } from './json-value.ts';
import type { ModelClient, ModelMessage, ModelResponse } from './model-client.ts';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface TextModel {
  complete(prompt: string): string | Promise<string>;
  completeChat?(system: string, messages: ChatMessage[]): string | Promise<string>;
}

/**
 * `system` alone, or `system\n\n` and `<role>: <content>` lines joined by newlines (no blank head
 * when system is empty).
 */
export function toPrompt(system: string, messages: readonly ChatMessage[]): string {
  if (messages.length === 0) return system;
  const turns = messages.map((message) => `${message.role}: ${message.content}`).join('\n');
  return system === '' ? turns : `${system}\n\n${turns}`;
}

export function textModelClient(
  model: TextModel | ((prompt: string) => string | Promise<string>),
  defaultModel = 'text-model',
): ModelClient {
  const text: TextModel = typeof model === 'function' ? { complete: model } : model;
  return {
    defaultModel,
    async createMessage(request): Promise<ModelResponse> {
      const messages = request.messages.map(flatten);
      const system = request.system ?? '';
      const reply = text.completeChat
        ? await text.completeChat(system, messages)
        : await text.complete(toPrompt(system, messages));
      if (reply === null || reply === undefined) throw new TypeError('the text model returned nothing');
      return {
        content: [{ type: 'text', text: String(reply) }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 0, output_tokens: 0 },
      };
    },
  };
}

function flatten(message: ModelMessage): ChatMessage {
  if (typeof message.content === 'string') return { role: message.role, content: message.content };
  const parts = message.content.map((block) => {
    if (block.type === 'text') return block.text;
    if (block.type === 'tool_use') return `[tool_use ${block.name}] ${compactJson(block.input)}`;
    return `[tool_result] ${block.content}`;
  });
  return { role: message.role, content: parts.join('\n') };
}
