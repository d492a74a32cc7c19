/**
 * OTel emission: each agent turn becomes an `invoke_agent` span (GenAI semantic conventions) with
 * its tool calls as `execute_tool` children, and the run id as `gen_ai.conversation.id`, so a
 * collector's bound evaluators judge rehearsals like production traffic. Each turn is its own
 * trace, as a production request would be. Content is captured (input and output messages, tool
 * arguments and results) because judging needs it.
 */
import { context as otelContext, SpanKind, SpanStatusCode, trace as otelTrace, type Tracer } from '@opentelemetry/api';
import { compactJson } from '../../judge/json-value.ts';
import type { Action, HistoryEntry, SimulationEvent } from '../agent/agent.ts';

export type AgentKind = 'claude' | 'remote' | 'code';

/** One agent turn with the run it belongs to. */
export interface SimulationAgentTurn {
  runId: string;
  scenario: string;
  trial: number;
  agent: string;
  agentKind?: AgentKind;
  respondIn: string;
  history: readonly HistoryEntry[];
  events: readonly SimulationEvent[];
  startedAt: number;
  endedAt: number;
  action?: Action;
  error?: unknown;
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
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': PROVIDER[turn.agentKind ?? 'code'],
      'gen_ai.agent.name': turn.agent,
      'gen_ai.agent.id': options.agentId ?? turn.agent,
      'gen_ai.conversation.id': turn.runId,
      ...(options.model && turn.agentKind === 'claude' ? { 'gen_ai.request.model': options.model } : {}),
      'gen_ai.input.messages': JSON.stringify(inputMessages(turn)),
      'evalon.simulation.run_id': turn.runId,
      'evalon.simulation.scenario': turn.scenario,
      'evalon.simulation.trial': turn.trial,
      'evalon.simulation.respond_in': turn.respondIn,
    },
  });
  const action = turn.action;
  if (action?.type === 'send') {
    span.setAttribute(
      'gen_ai.output.messages',
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
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': interaction.call.toolName,
            'gen_ai.tool.type': 'function',
            'gen_ai.tool.call.arguments': compactJson(interaction.call.arguments),
            ...(interaction.result.error === undefined
              ? { 'gen_ai.tool.call.result': compactJson(interaction.result.result) }
              : {}),
          },
        },
        parent,
      );
      if (interaction.result.error !== undefined) {
        child.setAttribute('error.type', 'tool_error');
        child.setStatus({ code: SpanStatusCode.ERROR, message: interaction.result.error });
      }
      child.end(turn.startedAt + slice * (index + 1));
    });
  } else if (action?.type === 'end') {
    span.setAttribute(
      'gen_ai.output.messages',
      JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: '[END]' }], finish_reason: 'stop' }]),
    );
  }
  if (turn.error !== undefined) {
    const error = turn.error instanceof Error ? turn.error : new Error(String(turn.error));
    span.setAttribute('error.type', error.name || 'Error');
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
