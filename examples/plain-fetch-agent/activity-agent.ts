/**
 * An agent without any model SDK: it calls the Anthropic Messages API with `fetch`, runs its tool
 * itself, and is instrumented by `invokeAgent` alone. It returns its whole turn as GenAI semconv
 * messages (tool calls, tool results, final answer), which the wrapper records as the agent's
 * output, and puts its token usage on the agent span.
 */
import {
  invokeAgent,
  type AgentMessage,
  type AgentMessagePart,
  type AgentReply,
} from '../../src/instrumentation/index.ts';
import { getWeather, WEATHER_TOOL } from './weather.ts';

export const ACTIVITY_AGENT = {
  id: 'activity-agent',
  name: 'Activity agent',
  description: 'Suggests weekend activities from the weather forecast',
  version: '1.0.0',
  roles: ['customer-facing', 'recommendations'],
} as const;

const SYSTEM_PROMPT =
  'You suggest one weekend activity in a city. Check the forecast with get_weather first. Answer in one sentence.';
const MAX_TURNS = 4;

/** An error answer of the Messages API; its class name is the span's `error.type`. */
export class MessagesApiError extends Error {
  readonly status: number;
  constructor(status: number, body: string) {
    super(`activity agent: the Messages API answered ${status}: ${body.slice(0, 200)}`);
    this.name = 'MessagesApiError';
    this.status = status;
  }
}

export interface ActivityAgentOptions {
  /** The API's base URL, e.g. https://api.anthropic.com or a scripted model's. */
  baseURL: string;
  apiKey: string;
  model: string;
}

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: string };
type ApiMessage = { role: 'user' | 'assistant'; content: string | Array<Record<string, unknown>> };
interface ApiReply {
  content: ContentBlock[];
  stop_reason: string;
  usage?: { input_tokens?: number; output_tokens?: number };
}

export interface ActivityAgent {
  /** Answers one question; the result is the turn as semconv messages (see `finalText`). */
  ask(question: string, options?: { conversationId?: string }): Promise<AgentReply<AgentMessage[]>>;
}

export function createActivityAgent({ baseURL, apiKey, model }: ActivityAgentOptions): ActivityAgent {
  const endpoint = new URL('v1/messages', baseURL.endsWith('/') ? baseURL : `${baseURL}/`);

  async function callModel(messages: ApiMessage[]): Promise<ApiReply> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model, max_tokens: 1024, system: SYSTEM_PROMPT, tools: [WEATHER_TOOL], messages }),
      signal: AbortSignal.timeout(60_000),
    });
    if (!response.ok) throw new MessagesApiError(response.status, await response.text());
    return (await response.json()) as ApiReply;
  }

  return {
    ask(question, { conversationId } = {}) {
      return invokeAgent({ ...ACTIVITY_AGENT, conversationId, input: question }, async ({ span }) => {
        const messages: ApiMessage[] = [{ role: 'user', content: question }];
        const turn: AgentMessage[] = [];
        const usage = { input: 0, output: 0 };
        for (let round = 0; round < MAX_TURNS; round++) {
          const reply = await callModel(messages);
          usage.input += reply.usage?.input_tokens ?? 0;
          usage.output += reply.usage?.output_tokens ?? 0;
          messages.push({ role: 'assistant', content: reply.content as Array<Record<string, unknown>> });
          turn.push({ role: 'assistant', parts: reply.content.map(toPart) });
          const toolUses = reply.content.filter(
            (block): block is Extract<ContentBlock, { type: 'tool_use' }> => block.type === 'tool_use',
          );
          if (reply.stop_reason !== 'tool_use' || toolUses.length === 0) {
            // No SDK records the model calls here: the agent span carries provider, model and usage.
            span.setAttributes({
              'gen_ai.provider.name': 'anthropic',
              'gen_ai.request.model': model,
              'gen_ai.usage.input_tokens': usage.input,
              'gen_ai.usage.output_tokens': usage.output,
            });
            return turn;
          }
          const results = toolUses.map((use) => ({
            id: use.id,
            result: use.name === WEATHER_TOOL.name ? getWeather(use.input) : { error: `unknown tool ${use.name}` },
          }));
          messages.push({
            role: 'user',
            content: results.map(({ id, result }) => ({
              type: 'tool_result',
              tool_use_id: id,
              content: JSON.stringify(result),
            })),
          });
          turn.push({
            role: 'tool',
            parts: results.map(({ id, result }) => ({ type: 'tool_call_response', id, response: result })),
          });
        }
        throw new Error(`activity agent: no answer after ${MAX_TURNS} model calls`);
      });
    },
  };
}

/** The text of the last assistant message of a turn. */
export function finalText(turn: AgentMessage[]): string {
  const last = turn.findLast((message) => message.role === 'assistant');
  return (last?.parts ?? [])
    .flatMap((part) => (part.type === 'text' && typeof part.content === 'string' ? [part.content] : []))
    .join('');
}

function toPart(block: ContentBlock): AgentMessagePart {
  if (block.type === 'text' && 'text' in block) return { type: 'text', content: block.text };
  if (block.type === 'tool_use' && 'name' in block)
    return { type: 'tool_call', id: block.id, name: block.name, arguments: block.input };
  return { type: block.type };
}
