/**
 * A customer-support agent: the Anthropic SDK's tool runner with two tools, wrapped in
 * `invokeAgent` so that each question is one interaction of `support-agent` for the collector,
 * with the SDK's model calls and tool runs (its native tracing) merged into it.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { invokeAgent, type AgentReply } from '../../src/instrumentation/index.ts';
import { supportTools } from './tools.ts';

/** Who the agent is: the id evaluator bindings name, and the roles they can bind to. */
export const SUPPORT_AGENT = {
  id: 'support-agent',
  name: 'Support agent',
  description: 'Answers customer questions about orders and shipping',
  version: '1.0.0',
  roles: ['customer-facing'],
} as const;

const SYSTEM_PROMPT =
  'You are the support agent of an outdoor-gear shop. Use the tools to look orders up before answering. ' +
  'Answer in one or two short sentences. If the customer gives no order number, ask for it.';

export interface SupportAgentOptions {
  client: Anthropic;
  model: string;
  maxTokens?: number;
}

export interface SupportAgent {
  /**
   * Answers one customer message; resolves to the answer and its interaction id. Messages of one
   * conversation share `conversationId`; `endConversation` marks the last one (the collector then
   * evaluates the conversation at once).
   */
  ask(question: string, options?: { conversationId?: string; endConversation?: boolean }): Promise<AgentReply<string>>;
}

export function createSupportAgent({ client, model, maxTokens = 1024 }: SupportAgentOptions): SupportAgent {
  return {
    ask(question, { conversationId, endConversation } = {}) {
      return invokeAgent({ ...SUPPORT_AGENT, conversationId, endConversation, input: question }, async () => {
        const message = await client.beta.messages.toolRunner(
          {
            model,
            max_tokens: maxTokens,
            system: SYSTEM_PROMPT,
            messages: [{ role: 'user', content: question }],
            tools: supportTools,
            max_iterations: 5,
          },
          conversationId ? { openTelemetry: { conversationId } } : undefined,
        );
        return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      });
    },
  };
}
