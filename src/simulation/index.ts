/**
 * evalon/simulation: scenario YAML, the actor runtime, agents (in-process Claude, code, remote),
 * mock tools, the criteria judge over the transcript, outputs, record/replay and OTel emission.
 */
// Scenarios
export { loadScenario, parseScenario } from './scenario/scenario-loader.ts';
export { RESERVED_PARTICIPANT_NAMES, scenarioSchema } from './scenario/scenario-schema.ts';
export { formatIssue, formatPath, ScenarioError } from './scenario/scenario-error.ts';
export type { ScenarioIssue } from './scenario/scenario-error.ts';
export { DEFAULT_MAX_TURNS, evaluatedParticipant, participantNamed } from './scenario/scenario.ts';
export type {
  ContextExpectation,
  Conversation,
  EventSchema,
  EventSourceSpec,
  Observation,
  Participant,
  ParticipantType,
  ResponseSpeed,
  Scenario,
} from './scenario/scenario.ts';

// Running
export { runScenario } from './run/run-scenario.ts';
export type { RunScenarioOptions, ScenarioRunResult } from './run/run-scenario.ts';
export { createSimulationRunner } from './run/simulation-runner.ts';
export type { SimulationRunner } from './run/simulation-runner.ts';
export { runBatch } from './run/run-batch.ts';
export type { BatchOptions, BatchResult, RunOutcome, ScenarioSummary } from './run/run-batch.ts';
export { passHatK, passHatKs } from './run/pass-hat-k.ts';
export { checkContextExpectations } from './run/context-expectations.ts';
export { loadRecording, recordingPath, RecordingError, saveRecording } from './run/recording-store.ts';
export type { RecordingFile } from './run/recording-store.ts';

// Runtime
export { DEFAULT_SIMULATION_TIMEOUT_MS, runSimulation, START_MESSAGE } from './runtime/scenario-runner.ts';
export type { EndReason, SimulationOptions, SimulationOutcome } from './runtime/scenario-runner.ts';
export { AgentStepFailedError, SimulationFailedError, SimulationTimeoutError } from './runtime/simulation-errors.ts';
export { CompletionGate, ReplayMismatchError, ReplayedError } from './runtime/completion-gate.ts';
export type { GateMode, OperationKind, RecordedCompletion, RecordedError } from './runtime/completion-gate.ts';
export type { CustomEventSource } from './runtime/event-source.ts';
export type { AgentTurn } from './runtime/agent-actor.ts';
export { END_SIGNAL, NO_ACTION_SIGNAL, NO_QUESTION_SIGNAL } from './runtime/signals.ts';
export { THINKING_DELAY_MS } from './runtime/thinking-delay.ts';

// Agents
export { END_ACTION, sendAction } from './agent/agent.ts';
export type {
  Action,
  Agent,
  EndAction,
  HistoryEntry,
  Message,
  SendAction,
  SimulationEvent,
  ToolCall,
  ToolInteraction,
  ToolResult,
  ToolUseEntry,
  TurnEntry,
} from './agent/agent.ts';
export { AgentReply, fromSimpleAgent, InvalidTraceError } from './agent/simple-agent.ts';
export type { HistoryTurn, SimpleAgent } from './agent/simple-agent.ts';
export { createClaudeAgent, DEFAULT_MAX_TOOL_ROUNDS } from './agent/claude-agent.ts';
export type { ClaudeAgentOptions } from './agent/claude-agent.ts';
export { ASSIST_AGENT_PROMPT, DIRECT_AGENT_PROMPT } from './agent/agent-prompts.ts';
export { createRemoteAgent, isRetryableStatus, RemoteAgentError, RETRYABLE_STATUSES } from './agent/remote-agent.ts';
export type { RemoteAgentOptions } from './agent/remote-agent.ts';
export { decodeStepResponse, encodeStepRequest, PROTOCOL_VERSION } from './agent/remote-protocol.ts';
export type { StepRequest, WireHistoryItem, WireInteraction } from './agent/remote-protocol.ts';

// Tools
export { builtInTools, executeTool } from './tools/tool-registry.ts';
export type { Tool } from './tools/tool.ts';

// Outputs
export { createTranscriptPrinter } from './output/transcript-printer.ts';
export type { TranscriptPrinter, TranscriptPrinterOptions } from './output/transcript-printer.ts';
export { evaluationJson, saveDatasetEntry, toPlan } from './output/dataset-writer.ts';
export type { PlanStep } from './output/dataset-writer.ts';
export { summaryJson } from './output/run-summary.ts';

// Telemetry
export { recordAgentTurn } from './telemetry/agent-turn-spans.ts';
export type { AgentKind, AgentTurnSpanOptions, SimulationAgentTurn } from './telemetry/agent-turn-spans.ts';
export { createSimulationTelemetry, otlpTelemetryFromEnv, tracesEndpoint } from './telemetry/otlp-telemetry.ts';
export type { SimulationTelemetry } from './telemetry/otlp-telemetry.ts';

// The judge and model client, re-exported for convenience (also at evalon/judge).
export { createAnthropicModelClient, judgeCriteria, textModelClient, toPrompt } from '../judge/index.ts';
export type {
  ChatMessage,
  Criterion,
  CriterionResult,
  JudgeVerdict,
  ModelClient,
  TextModel,
  TranscriptEntry,
} from '../judge/index.ts';
