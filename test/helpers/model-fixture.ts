/**
 * Test helpers around the scripted model (src/testing/scripted-model.ts): one local Anthropic
 * Messages server playing every role, routed by the system prompt of each request.
 */
import { createAnthropicModelClient } from '../../src/judge/anthropic-model-client.ts';
import type { ModelClient, ModelRequest, ModelResponse } from '../../src/judge/model-client.ts';
import {
  createScriptedModel,
  type RecordedRequest,
  type ScriptedModel,
  type ScriptedReply,
} from '../../src/testing/scripted-model.ts';

export type Role = 'judge' | 'event_source' | 'participant' | 'agent';

export interface RoleHandlers {
  judge?: (request: RecordedRequest) => ScriptedReply | string;
  event_source?: (request: RecordedRequest) => ScriptedReply | string;
  participant?: (request: RecordedRequest, name: string) => ScriptedReply | string;
  agent?: (request: RecordedRequest) => ScriptedReply | string;
}

export function roleOf(request: RecordedRequest): Role {
  const system = systemOf(request);
  if (system.includes('expert evaluator')) return 'judge';
  if (system.includes('simulated event source')) return 'event_source';
  if (system.includes('role-playing') || system.includes('Your name/role')) return 'participant';
  return 'agent';
}

export function systemOf(request: RecordedRequest): string {
  const system = request.body.system;
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) return system.map((block: { text?: string }) => block.text ?? '').join('\n');
  return '';
}

/** The participant a role-play request is for (from "Your name/role: x"). */
export function participantOf(request: RecordedRequest): string {
  return /Your name\/role: (\S+)/.exec(systemOf(request))?.[1] ?? '';
}

/** The text of the last user message of a request. */
export function lastUserText(request: RecordedRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const last = [...messages].reverse().find((message) => message.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as Array<{ type: string; text?: string; content?: string }>)
    .map((block) => block.text ?? block.content ?? '')
    .join('\n');
}

export const PASS_VERDICT = '{"passed": true, "score": 1.0, "reasoning": "ok"}';

export interface ModelFixture {
  scripted: ScriptedModel;
  client: ModelClient;
  route(handlers: RoleHandlers): void;
  close(): Promise<void>;
}

export async function startModel(): Promise<ModelFixture> {
  const scripted = await createScriptedModel();
  const client = createAnthropicModelClient({
    baseURL: scripted.baseURL,
    apiKey: 'test-key',
    model: 'scripted',
    maxRetries: 0,
  });
  return {
    scripted,
    client,
    route(handlers) {
      scripted.respondWith((request) => {
        const role = roleOf(request);
        const handler = handlers[role];
        if (role === 'participant' && handlers.participant)
          return handlers.participant(request, participantOf(request));
        if (handler) return (handler as (r: RecordedRequest) => ScriptedReply | string)(request);
        if (role === 'judge') return PASS_VERDICT;
        if (role === 'event_source') return '[]';
        if (role === 'participant') return '[END]';
        return 'How can I help?';
      });
    },
    close: () => scripted.close(),
  };
}

/** A client that fails some calls the way real code can: by throwing synchronously, rejecting or returning nothing. */
export function withFaults(
  client: ModelClient,
  fault: (request: ModelRequest) => 'throw' | 'reject' | 'null' | undefined,
  message = 'llm down',
): ModelClient {
  return {
    defaultModel: client.defaultModel,
    createMessage(request): Promise<ModelResponse> {
      const kind = fault(request);
      if (kind === 'throw') throw new Error(message);
      if (kind === 'reject') return Promise.reject(new Error(message));
      if (kind === 'null') return Promise.resolve(null as unknown as ModelResponse);
      return client.createMessage(request);
    },
  };
}

export function isRolePlay(request: ModelRequest): boolean {
  return (request.system ?? '').includes('Your name/role');
}

export function isEventSource(request: ModelRequest): boolean {
  return (request.system ?? '').includes('simulated event source');
}
