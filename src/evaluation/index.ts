/**
 * `evalon/evaluation`: the evaluator API (`Evaluator`, `DurableEvaluator` with its steps, settings
 * and retry policy, `Evaluation`, effects, `EvaluationContext`, `LedgerClient`, `EvaluationRecord`).
 *
 * ```ts
 * import { defineEvaluator, effects, Evaluation } from 'evalon/evaluation';
 *
 * export const replyLength = defineEvaluator({
 *   id: 'reply-length-evaluator',
 *   create: ({ ledger }) => ({
 *     async evaluate(context) {
 *       const minLength = context.config().getInt('min-length');
 *       const interaction = await ledger.getInteraction(context.subject.interactionId);
 *       const length = interaction.finalResponseText.length;
 *       const explanation = `reply of ${length} characters, minimum ${minLength}`;
 *       return effects.complete(Evaluation.of(length >= minLength, explanation));
 *     },
 *   }),
 * });
 * ```
 */
export { Evaluation, type EvaluationAttributeValue, type EvaluationData } from './evaluation.ts';
export { effects, isEffect, type Effect, type Effects } from './effect.ts';
export {
  Subject,
  type ConversationSubject,
  type EvaluationContext,
  type EvaluationTrigger,
  type InteractionSubject,
  type SubjectKind,
} from './evaluation-context.ts';
export { DurableEvaluator, isDurableEvaluator } from './durable-evaluator.ts';
export type {
  DurableEffect,
  DurableEffects,
  SignalWaitEffect,
  StateUpdate,
  StepReference,
  Transition,
} from './durable-effect.ts';
export { isSignalArrival, type AwaitSignalOptions, type SignalArrival } from './signal-wait.ts';
export { DurableSettings } from './durable-settings.ts';
export type { StepDeclaration, StepDeclarations, StepMethod } from './durable-steps.ts';
export type { RetryPolicy } from './retry-policy.ts';
export type { Duration } from '../config/duration.ts';
export { EvaluatorConfig } from './evaluator-config.ts';
export { configValues } from './config-values.ts';
export {
  DEFAULT_EVALUATION_TIMEOUT_MS,
  DEFAULT_EVALUATOR_VERSION,
  defineEvaluator,
  isEvaluatorDefinition,
  type Evaluator,
  type EvaluatorDefinition,
  type EvaluatorDefinitionOptions,
  type EvaluatorDependencies,
} from './evaluator.ts';
export type { InteractionQuery, LedgerClient } from './ledger-client.ts';
export type {
  DurableProgress,
  EvaluationOutcome,
  EvaluationOutcomeType,
  EvaluationRecord,
  SignalWaitProgress,
  EvaluatorType,
} from '../model/records.ts';
export {
  ConfigPropertyTypeError,
  ConversationNotFoundError,
  DurableEffectError,
  EvaluatorDefinitionError,
  EvaluatorFailedError,
  InteractionNotFoundError,
  InvalidEvaluationError,
  MissingConfigPropertyError,
  UnsupportedSubjectError,
} from './errors.ts';
export type {
  ConversationRecord,
  ConversationWithInteractions,
  InteractionRecord,
  Message,
  MessagePart,
  ToolCall,
  TranscriptEntry,
  Usage,
} from '../model/records.ts';
