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
  /**
   * What was evaluated. Absent on records of one interaction written before conversations existed
   * (read it as `{ kind: 'interaction' }`). For a conversation, `interactionId` above is the id of
   * the revision's last interaction (the span its verdict is parented to).
   */
  subject?: EvaluationSubjectRef;
  /** True for an evaluator entry marked `shadow: true`: recorded and exported, left out of pass rates. */
  shadow?: boolean;
  /** Where the verdict came from: which kind of evaluator, which model, which properties. */
  provenance?: EvaluationProvenance;
}

/** The subject an evaluation record is about. */
export type EvaluationSubjectRef =
  | { kind: 'interaction' }
  | { kind: 'conversation'; conversationId: string; agentId: string; revision: number };

/** `gen_ai.evaluation.evaluator.type`: what kind of evaluator gave a verdict. */
export type EvaluatorType = 'llm_judge' | 'deterministic' | 'human' | 'custom';

export interface EvaluationProvenance {
  /** The kind of evaluator (`gen_ai.evaluation.evaluator.type`). */
  evaluatorType: EvaluatorType;
  /** The judge's model (`gen_ai.request.model`), for LLM judges. */
  model?: string;
  /** Hash of the entry's effective properties for this subject (`evalon.evaluation.config_hash`). */
  configHash?: string;
  /** Who gave a human verdict (`evalon.reviewer`). */
  reviewer?: string;
  /**
   * The binding the evaluation ran under (`agents::support-agent`, `agent-roles::*`): what a
   * binding's token budget counts after a restart.
   */
  binding?: string;
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
  /** Set while the evaluation is parked waiting for a signal; `step` is the step that resumes it. */
  awaiting?: SignalWaitProgress;
  /** Milliseconds spent parked so far: the evaluation timeout does not count them. */
  waitedMs?: number;
}

/** A durable evaluation parked until a signal arrives or its deadline passes (`awaitSignal`). */
export interface SignalWaitProgress {
  /** The signal's name (`review`). */
  signal: string;
  /** ISO-8601: when it parked. */
  since: string;
  /** ISO-8601: when it resumes as timed out if no signal arrived. */
  deadline: string;
}

// Conversations ---------------------------------------------------------------------------------

/** Why a conversation is over: an explicit end (span attribute or API call), or idle time. */
export type ConversationEndReason = 'explicit' | 'idle';

/**
 * One conversation: the interactions of one agent that share a conversation id, in order of start
 * time. Its key is (conversationId, agentId). Each time it is over, it is evaluated as the next
 * revision (1, 2, …); a revision covers every interaction of the conversation up to its end.
 */
export interface ConversationRecord {
  conversationId: string;
  agentId: string;
  /** The current revision: the one open now, or the last one that ended. */
  revision: number;
  /** The interactions of the conversation so far, in order of start time. */
  interactionIds: string[];
  /** ISO-8601: the start of its first interaction. */
  startTime: string;
  /** ISO-8601: the end of its latest interaction (or the end request, if later). */
  lastActivityTime: string;
  /** ISO-8601: when the current revision ended; absent while it is open. */
  endTime?: string;
  endReason?: ConversationEndReason;
  /** Open: more turns are expected; not yet over. */
  open: boolean;
  /** A conversation is failed when its last interaction failed. */
  failed: boolean;
  /** The number of interactions (turns). */
  turns: number;
}

/** A conversation with its interactions, as `LedgerClient.getConversation` and the API detail return it. */
export interface ConversationWithInteractions extends ConversationRecord {
  interactions: InteractionRecord[];
}
