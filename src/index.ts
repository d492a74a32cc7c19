/**
 * `evalon`: the record types every part shares, and the two calls most users start with —
 * instrumenting an agent and defining an evaluator. Everything else is behind a subpath:
 * `evalon/instrumentation`, `evalon/register` (for `node --import`), `evalon/evaluation`,
 * `evalon/judge`, `evalon/simulation`, `evalon/testing`.
 *
 * ```ts
 * import { invokeAgent, register, defineEvaluator, type InteractionRecord } from 'evalon';
 * ```
 */

// The interaction ledger record (spec §2.3), as the collector's HTTP API returns it.
export type {
  Completion,
  InteractionRecord,
  Message,
  MessagePart,
  ToolCall,
  TranscriptEntry,
  Usage,
} from './model/records.ts';

// Instrumentation (all of it at evalon/instrumentation).
export { invokeAgent, register } from './instrumentation/index.ts';
export type {
  AgentInvocation,
  AgentReply,
  InvokeAgentOptions,
  RegisterOptions,
  Telemetry,
} from './instrumentation/index.ts';

// The evaluator API (all of it at evalon/evaluation).
export { defineEvaluator, effects, Evaluation } from './evaluation/index.ts';
export type { EvaluationContext, EvaluationRecord, Evaluator, EvaluatorDefinition } from './evaluation/index.ts';
