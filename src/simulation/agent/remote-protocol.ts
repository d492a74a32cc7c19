/**
 * The remote-agent wire format, protocol version "1": the request carries the whole history, the
 * events and the conversation to answer in; the response is one action. `tool_interactions` is
 * also accepted under its older name `tool_trace`.
 */
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../../judge/json-value.ts';
import type { Action, HistoryEntry, SimulationEvent, ToolInteraction } from './agent.ts';

export const PROTOCOL_VERSION = '1';

export interface WireToolCall {
  tool_name: string;
  arguments: JsonObject;
}

export interface WireToolResult {
  tool_name: string;
  arguments: JsonObject;
  result: JsonValue;
  error?: string;
}

export interface WireInteraction {
  call: WireToolCall;
  result: WireToolResult;
}

export type WireHistoryItem =
  | { type: 'turn'; conversation: string; sender: string; content: string; trace?: JsonValue }
  | { type: 'tool_use'; conversation: string; interaction: WireInteraction };

export interface StepRequest {
  protocol_version: string;
  history: WireHistoryItem[];
  events: Array<{ name: string; data: JsonObject }>;
  respond_in: string;
}

export function encodeStepRequest(
  history: readonly HistoryEntry[],
  events: readonly SimulationEvent[],
  respondIn: string,
): StepRequest {
  return {
    protocol_version: PROTOCOL_VERSION,
    history: history.map(
      (entry): WireHistoryItem =>
        entry.type === 'turn'
          ? {
              type: 'turn',
              conversation: entry.conversation,
              sender: entry.sender,
              content: entry.content,
              ...(entry.trace !== undefined ? { trace: entry.trace } : {}),
            }
          : { type: 'tool_use', conversation: entry.conversation, interaction: encodeInteraction(entry.interaction) },
    ),
    events: events.map((event) => ({ name: event.name, data: event.data })),
    respond_in: respondIn,
  };
}

export function encodeInteraction(interaction: ToolInteraction): WireInteraction {
  const { call, result } = interaction;
  return {
    call: { tool_name: call.toolName, arguments: call.arguments },
    result: {
      tool_name: result.toolName,
      arguments: result.arguments,
      result: result.result,
      ...(result.error !== undefined ? { error: result.error } : {}),
    },
  };
}

const json = z.json();
const args = z
  .record(z.string(), json)
  .nullish()
  .transform((value) => (value ?? {}) as JsonObject);

const wireInteraction = z
  .object({
    call: z.object({ tool_name: z.string(), arguments: args }),
    result: z.object({
      tool_name: z.string(),
      arguments: args,
      result: json.nullish().transform((value) => value ?? null),
      error: z.string().nullish(),
    }),
  })
  .transform(
    ({ call, result }): ToolInteraction => ({
      call: { toolName: call.tool_name, arguments: call.arguments },
      result: {
        toolName: result.tool_name,
        arguments: result.arguments,
        result: result.result as JsonValue,
        ...(typeof result.error === 'string' ? { error: result.error } : {}),
      },
    }),
  );

const sendSchema = z.object({
  type: z.literal('send'),
  message: z.object({ sender: z.string().optional(), content: z.string(), trace: json.optional() }),
  tool_interactions: z.array(wireInteraction).nullish(),
  tool_trace: z.array(wireInteraction).nullish(),
});

const stepResponse = z.object({
  action: z.discriminatedUnion('type', [sendSchema, z.object({ type: z.literal('end') })], {
    error: 'expected action.type "send" or "end"',
  }),
});

/** Decodes a response body; throws with a readable reason when it is not a valid step response. */
export function decodeStepResponse(body: unknown, agentName: string): Action {
  const parsed = stepResponse.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const action = parsed.data.action;
  if (action.type === 'end') return { type: 'end' };
  const { content, trace } = action.message;
  return {
    type: 'send',
    message: { sender: agentName, content, ...(trace !== undefined ? { trace: trace as JsonValue } : {}) },
    toolInteractions: action.tool_interactions ?? action.tool_trace ?? [],
  };
}
