/**
 * `evalon`: the record types every part shares, and the two calls most users start with —
 * instrumenting an agent and defining an evaluator. Everything else is behind a subpath:
 * `evalon/instrumentation`, `evalon/register` (for `node --import`), `evalon/evaluation`,
 * `evalon/judge`, `evalon/simulation`, `evalon/testing`.
 *
 * This entry stays light: it loads `@opentelemetry/api` but never the OpenTelemetry SDK, so an
 * evaluator module or an application that sets up OpenTelemetry itself does not pay for it.
 * `register()`, which starts the SDK, is at `evalon/instrumentation` (or `node --import evalon/register`).
 *
 * ```ts
 * import { invokeAgent, defineEvaluator, type InteractionRecord } from 'evalon';
 * import { register } from 'evalon/instrumentation';
 * ```
 */

// The interaction ledger record (and the conversation), as the collector's HTTP API returns it.
export type {
  Completion,
  ConversationRecord,
  ConversationWithInteractions,
  InteractionRecord,
  Message,
  MessagePart,
  ToolCall,
  TranscriptEntry,
  Usage,
} from './model/records.ts';

// Instrumentation without the SDK (register() and the rest at evalon/instrumentation).
export {
  invokeAgent,
  type AgentInvocation,
  type AgentReply,
  type InvokeAgentOptions,
} from './instrumentation/invoke-agent.ts';

// The evaluator API (all of it at evalon/evaluation).
export { defineEvaluator, type Evaluator, type EvaluatorDefinition } from './evaluation/evaluator.ts';
export { effects, type Effect } from './evaluation/effect.ts';
export { Evaluation } from './evaluation/evaluation.ts';
export type { EvaluationContext } from './evaluation/evaluation-context.ts';
export type { EvaluationRecord } from './model/records.ts';
