/**
 * The interaction ledger record (spec §2.3). These are the JSON names the HTTP API returns.
 */

/** A message part in the OTel GenAI shape (`gen_ai.input.messages` / `gen_ai.output.messages`). */
export type MessagePart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id?: string; name: string; arguments?: unknown }
  | { type: 'tool_call_response'; id?: string; response: unknown }
  | { type: 'reasoning'; content: string }
  | { type: string; [key: string]: unknown };

export interface Message {
  role: string;
  parts: MessagePart[];
  name?: string;
  finishReason?: string;
}

export interface ToolCall {
  name: string;
  callId?: string;
  arguments?: unknown;
  result?: unknown;
  error?: string;
}

/** One step of what happened, in order: a message, a tool call (with its result), or a nested agent. */
export type TranscriptEntry =
  | { type: 'message'; role: string; content: string; parts?: MessagePart[]; time?: string }
  | {
      type: 'tool_call';
      name: string;
      callId?: string;
      arguments?: unknown;
      result?: unknown;
      error?: string;
      time?: string;
    }
  | { type: 'agent_call'; agentId: string; interactionId: string; time?: string };

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
}

export type Completion = 'structural' | 'timeout';

export interface InteractionRecord {
  interactionId: string;
  traceId: string;
  spanId: string;
  agentId: string;
  agentName?: string;
  roles: string[];
  conversationId?: string;
  flowId?: string;
  startTime: string;
  endTime: string;
  durationMs: number;
  failed: boolean;
  failureSummary?: string;
  input: Message[];
  output: Message[];
  finalResponseText: string;
  transcript: TranscriptEntry[];
  toolCalls: ToolCall[];
  model?: string;
  provider?: string;
  usage: Usage;
  attributes: Record<string, unknown>;
  completion: Completion;
}

export function interactionIdOf(traceId: string, spanId: string): string {
  return `${traceId}-${spanId}`;
}
