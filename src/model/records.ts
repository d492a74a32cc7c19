/**
 * The records every part of Evalon shares: what the ledger stores, the HTTP API returns and
 * evaluators read. These are the JSON names on the wire. Types only.
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

// Evaluations -------------------------------------------------------------------------------

/** A value of `withAttribute`: what an OTel attribute can carry without nesting. */
export type EvaluationAttributeValue = string | number | boolean;

/** The JSON shape of a verdict, as stored in an `EvaluationRecord`. */
export interface EvaluationData {
  passed: boolean;
  explanation: string;
  score?: number;
  label?: string;
  attributes: Record<string, EvaluationAttributeValue>;
}

/**
 * `EvaluationRecord`: one recorded evaluation in the ledger. Every evaluation ends in exactly one of
 * three outcomes: a verdict, inconclusive, or failed. At most one record exists per (interaction,
 * evaluator, evaluator version).
 */

export type EvaluationOutcome =
  | { type: 'verdict'; evaluation: EvaluationData }
  | { type: 'inconclusive'; reason: string }
  /**
   * `error` is the message; `errorType` the error's name (`MissingConfigPropertyError`, `TimeoutError`…);
   * `attributes` what the evaluator reported before failing (a judge's token usage, for one).
   */
  | { type: 'failed'; error: string; errorType?: string; attributes?: Record<string, string | number | boolean> };

export type EvaluationOutcomeType = EvaluationOutcome['type'];

export interface EvaluationRecord {
  evaluationId: string;
  interactionId: string;
  evaluatorId: string;
  evaluatorVersion: string;
  /** The evaluator entry's `control-id`, when it sets one. */
  controlId?: string;
  agentId: string;
  outcome: EvaluationOutcome;
  /** When the interaction triggered the evaluation (ISO-8601). */
  triggeredAt: string;
  /** When the attempt that recorded the outcome started. */
  startedAt: string;
  completedAt: string;
  /** Attempts started, this one included (more than 1 after a restart mid-evaluation). */
  attempts: number;
}

/**
 * Where a durable evaluation is, saved after every completed step (`saveEvaluationProgress`), so
 * that after a restart it resumes with the next step and never runs a completed one again.
 */
export interface DurableProgress {
  /** The step to run next. */
  step: string;
  /** The value `withInput` passed to that step (JSON); absent when none. */
  input?: unknown;
  /** The state after the last completed step (JSON); absent when never set. */
  state?: unknown;
  /** Steps completed so far, `onEvaluation` included. */
  completedSteps: number;
  /** When the evaluation's first attempt started (ISO-8601): its timeout counts from here, across restarts. */
  firstStartedAt: string;
}
