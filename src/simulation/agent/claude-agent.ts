/**
 * The in-process Claude agent: a tool-use loop over the Messages API. Each step rebuilds the
 * conversation from the history the harness owns, then calls the model until it answers without
 * tool calls or the round budget runs out. Tool calls of one round run concurrently; unknown tools
 * and thrown errors come back to the model as error results.
 */
import { compactJson, type JsonObject, type JsonValue } from '../../judge/json-value.ts';
import type {
  ModelClient,
  ModelContentBlock,
  ModelMessage,
  ModelRequest,
  ModelToolUseBlock,
} from '../../judge/model-client.ts';
import { NO_ACTION_SIGNAL } from '../runtime/signals.ts';
import type { Tool } from '../tools/tool.ts';
import { executeTool } from '../tools/tool-registry.ts';
import { DEFAULT_AGENT_PROMPT } from './agent-prompts.ts';
import { sendAction, type Agent, type HistoryEntry, type SimulationEvent, type ToolInteraction } from './agent.ts';

export const DEFAULT_MAX_TOOL_ROUNDS = 10;
export const AGENT_MAX_TOKENS = 1024;

export interface ClaudeAgentOptions {
  model: ModelClient;
  tools?: readonly Tool[];
  /** The context the tools act on (the run's copy of the scenario's context). */
  context?: JsonObject;
  systemPrompt?: string;
  /** The evaluated participant's name; its messages are sent under it. */
  agentName?: string;
  maxToolRounds?: number;
  maxTokens?: number;
  modelName?: string;
}

export function createClaudeAgent(options: ClaudeAgentOptions): Agent {
  const tools = options.tools ?? [];
  const context = options.context ?? {};
  const agentName = options.agentName ?? 'agent';
  const maxRounds = Math.max(1, options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS);
  const base: Omit<ModelRequest, 'messages'> = {
    ...(options.modelName ? { model: options.modelName } : {}),
    max_tokens: options.maxTokens ?? AGENT_MAX_TOKENS,
    system: options.systemPrompt ?? DEFAULT_AGENT_PROMPT,
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            name: tool.name,
            ...(tool.description !== '' ? { description: tool.description } : {}),
            input_schema: tool.inputSchema,
          })),
        }
      : {}),
  };

  return {
    async step(history: readonly HistoryEntry[], events: readonly SimulationEvent[], respondIn: string) {
      const messages = agentMessages(history, events, respondIn);
      const trace: ToolInteraction[] = [];
      for (let round = 0; round < maxRounds; round++) {
        const response = await options.model.createMessage({ ...base, messages: messages.slice() });
        if (response === null || response === undefined) throw new TypeError('the model returned no response');
        let content = '';
        for (const block of response.content) {
          if (block.type !== 'text' || block.text.trim() === NO_ACTION_SIGNAL) continue;
          const trimmed = block.text.trim();
          content = trimmed.endsWith(NO_ACTION_SIGNAL) ? trimmed.slice(0, -NO_ACTION_SIGNAL.length).trim() : block.text;
        }
        const uses = response.content.filter((block): block is ModelToolUseBlock => block.type === 'tool_use');
        const assistant: ModelContentBlock[] = response.content.filter(
          (block) => block.type !== 'text' || block.text.trim() !== '',
        );
        messages.push({
          role: 'assistant',
          content: assistant.length > 0 ? assistant : [{ type: 'text', text: '(no content)' }],
        });
        if (uses.length === 0) return sendAction(agentName, content.trim() === '' ? '' : content, trace);
        const results = await Promise.all(uses.map((use) => executeTool(tools, use.name, use.input ?? {}, context)));
        trace.push(...results);
        messages.push({
          role: 'user',
          content: results.map((interaction, index) => ({
            type: 'tool_result' as const,
            tool_use_id: uses[index].id,
            content: interaction.result.error ?? resultText(interaction.result.result),
            ...(interaction.result.error !== undefined ? { is_error: true } : {}),
          })),
        });
      }
      return sendAction(
        agentName,
        `Reached the maximum of ${maxRounds} tool-use rounds without completing the request.`,
        trace,
      );
    },
  };
}

/**
 * The step's conversation: every history entry as a user line (turns `[sender in conversation]:`,
 * past tool uses as a note), merged into one user message, then the nudge to respond, preceded by
 * any events.
 */
export function agentMessages(
  history: readonly HistoryEntry[],
  events: readonly SimulationEvent[],
  respondIn: string,
): ModelMessage[] {
  const lines = history.map((entry) => {
    if (entry.type === 'turn') return `[${entry.sender} in ${entry.conversation}]: ${entry.content}`;
    const { call, result } = entry.interaction;
    const outcome = result.error ?? resultText(result.result);
    return (
      `[you previously called tool '${call.toolName}' in ${entry.conversation} with arguments ` +
      `${compactJson(call.arguments)} → result: ${outcome}]`
    );
  });
  const eventLines = events.map((event) => `[System event: ${event.name}] ${compactJson(event.data)}`);
  const nudge =
    history.length === 0
      ? `The "${respondIn}" conversation is starting. Please begin.`
      : `[system]: Respond now in the "${respondIn}" conversation.`;
  const parts = [
    ...(lines.length > 0 ? [lines.join('\n')] : []),
    [...eventLines, ...(eventLines.length > 0 ? [''] : []), nudge].join('\n'),
  ];
  return [{ role: 'user', content: parts.join('\n\n') }];
}

/**
 * A tool result as the model reads it: text as it is (a tool that answers in text, as a recorded
 * production tool often did, reads the same as it did there), anything else as compact JSON.
 */
function resultText(result: JsonValue): string {
  return typeof result === 'string' ? result : compactJson(result);
}
