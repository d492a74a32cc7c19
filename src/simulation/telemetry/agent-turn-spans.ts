/**
 * OTel emission: each agent turn becomes an `invoke_agent` span (GenAI semantic conventions) with
 * its tool calls as `execute_tool` children, and the run id as `gen_ai.conversation.id`, so a
 * collector's bound evaluators judge rehearsals like production traffic: a run is one conversation
 * of the evaluated agent, and its last turn carries `evalon.conversation.ended = true`, so that
 * conversation-bound evaluators judge the rehearsal as a whole as soon as it is over. Each turn is
 * its own trace, as a production request would be. Content is captured (input and output
 * messages, tool arguments and results) because judging needs it.
 */
import { context as otelContext, SpanKind, SpanStatusCode, trace as otelTrace, type Tracer } from '@opentelemetry/api';
import { compactJson } from '../../judge/json-value.ts';
import type { Action, HistoryEntry, SimulationEvent } from '../agent/agent.ts';
import {
  ERROR_TYPE,
  EVALON_CONVERSATION_ENDED,
  EVALON_SIMULATION_RESPOND_IN,
  EVALON_SIMULATION_RUN_ID,
  EVALON_SIMULATION_SCENARIO,
  EVALON_SIMULATION_TRIAL,
  GEN_AI_AGENT_ID,
  GEN_AI_AGENT_NAME,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_INPUT_MESSAGES,
  GEN_AI_OPERATION_NAME,
  GEN_AI_OUTPUT_MESSAGES,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  GEN_AI_TOOL_TYPE,
} from '../../model/attributes.ts';

export type AgentKind = 'claude' | 'remote' | 'code';

/** One agent turn with the run it belongs to. */
export interface SimulationAgentTurn {
  runId: string;
  scenario: string;
  trial: number;
  agent: string;
  agentKind?: AgentKind;
  /** The in-process agent's model when its participant sets one (it wins over the options' `model`). */
  model?: string;
  respondIn: string;
  history: readonly HistoryEntry[];
  events: readonly SimulationEvent[];
  startedAt: number;
  endedAt: number;
  action?: Action;
  error?: unknown;
  /** The run's last turn: its span ends the run's conversation. */
  endsConversation?: boolean;
}

export interface AgentTurnSpanOptions {
  /** `gen_ai.agent.id` (what collector bindings match); the participant name by default. */
  agentId?: string;
  /** `gen_ai.request.model` of the in-process agent. */
  model?: string;
}

const PROVIDER: Record<AgentKind, string> = {
  claude: 'anthropic',
  remote: 'evalon.remote_agent',
  code: 'evalon.code_agent',
};

export function recordAgentTurn(tracer: Tracer, turn: SimulationAgentTurn, options: AgentTurnSpanOptions = {}): void {
  const span = tracer.startSpan(`invoke_agent ${turn.agent}`, {
    kind: turn.agentKind === 'remote' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    startTime: turn.startedAt,
    root: true,
    attributes: {
      [GEN_AI_OPERATION_NAME]: 'invoke_agent',
      [GEN_AI_PROVIDER_NAME]: PROVIDER[turn.agentKind ?? 'code'],
      [GEN_AI_AGENT_NAME]: turn.agent,
      [GEN_AI_AGENT_ID]: options.agentId ?? turn.agent,
      [GEN_AI_CONVERSATION_ID]: turn.runId,
      ...((turn.model ?? options.model) && turn.agentKind === 'claude'
        ? { [GEN_AI_REQUEST_MODEL]: turn.model ?? options.model }
        : {}),
      [GEN_AI_INPUT_MESSAGES]: JSON.stringify(inputMessages(turn)),
      [EVALON_SIMULATION_RUN_ID]: turn.runId,
      [EVALON_SIMULATION_SCENARIO]: turn.scenario,
      [EVALON_SIMULATION_TRIAL]: turn.trial,
      [EVALON_SIMULATION_RESPOND_IN]: turn.respondIn,
      ...(turn.endsConversation ? { [EVALON_CONVERSATION_ENDED]: true } : {}),
    },
  });
  const action = turn.action;
  if (action?.type === 'send') {
    span.setAttribute(
      GEN_AI_OUTPUT_MESSAGES,
      JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: action.message.content }], finish_reason: 'stop' },
      ]),
    );
    const interactions = action.toolInteractions;
    const slice = (turn.endedAt - turn.startedAt) / Math.max(1, interactions.length + 1);
    interactions.forEach((interaction, index) => {
      const parent = otelTrace.setSpan(otelContext.active(), span);
      const child = tracer.startSpan(
        `execute_tool ${interaction.call.toolName}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: turn.startedAt + slice * index,
          attributes: {
            [GEN_AI_OPERATION_NAME]: 'execute_tool',
            [GEN_AI_TOOL_NAME]: interaction.call.toolName,
            [GEN_AI_TOOL_TYPE]: 'function',
            [GEN_AI_TOOL_CALL_ARGUMENTS]: compactJson(interaction.call.arguments),
            ...(interaction.result.error === undefined
              ? { [GEN_AI_TOOL_CALL_RESULT]: compactJson(interaction.result.result) }
              : {}),
          },
        },
        parent,
      );
      if (interaction.result.error !== undefined) {
        child.setAttribute(ERROR_TYPE, 'tool_error');
        child.setStatus({ code: SpanStatusCode.ERROR, message: interaction.result.error });
      }
      child.end(turn.startedAt + slice * (index + 1));
    });
  } else if (action?.type === 'end') {
    span.setAttribute(
      GEN_AI_OUTPUT_MESSAGES,
      JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: '[END]' }], finish_reason: 'stop' }]),
    );
  }
  if (turn.error !== undefined) {
    const error = turn.error instanceof Error ? turn.error : new Error(String(turn.error));
    span.setAttribute(ERROR_TYPE, error.name || 'Error');
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  }
  span.end(turn.endedAt);
}

/** The turn's input as GenAI messages: the history (own turns as assistant), then any events. */
function inputMessages(turn: SimulationAgentTurn): unknown[] {
  const messages: unknown[] = turn.history.map((entry) => {
    if (entry.type === 'turn') {
      const own = entry.sender === turn.agent;
      return {
        role: own ? 'assistant' : 'user',
        ...(own ? {} : { name: entry.sender }),
        parts: [{ type: 'text', content: entry.content }],
      };
    }
    const { call, result } = entry.interaction;
    return {
      role: 'tool',
      parts: [{ type: 'tool_call_response', response: result.error ?? result.result, name: call.toolName }],
    };
  });
  if (turn.events.length > 0) {
    messages.push({
      role: 'user',
      name: 'events',
      parts: turn.events.map((event) => ({ type: 'text', content: `${event.name}: ${compactJson(event.data)}` })),
    });
  }
  return messages;
}
