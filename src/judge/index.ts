/**
 * `evalon/judge`: judging a transcript with a model. The criteria judge (one model call per
 * criterion, weighted, fail closed), the one-call rubric judge, and the model client they share
 * (the Anthropic one, any text model, or your own `ModelClient`). Prompt building, verdict parsing
 * and retry internals stay inside Evalon.
 */
export { combineResults, judgeCriteria, judgeCriterion } from './criteria-judge.ts';
export type { CriterionResult, JudgeOptions, JudgeVerdict } from './criteria-judge.ts';
export type { Criterion } from './criterion.ts';
export { criteriaSchema } from './criterion-schema.ts';
export type { JudgeTranscriptEntry } from './transcript.ts';
export { JudgeOutputError, judgeRubric, type RubricJudgeOptions, type RubricVerdict } from './rubric-judge.ts';
export { JudgeInputTooLongError } from './budgeted-call.ts';

// The model client
export type { ModelClient, ModelRequest, ModelResponse } from './model-client.ts';
export { responseText } from './model-client.ts';
export { extractJsonObject } from './verdict-parser.ts';
export {
  createAnthropicModelClient,
  ModelCallError,
  type AnthropicModelClientOptions,
} from './anthropic-model-client.ts';
export { textModelClient, type ChatMessage, type TextModel } from './text-model-client.ts';
