/** The criteria judge: per-criterion LLM judging of a transcript, shared by simulation and collector. */
export { DEFAULT_CRITERION_WEIGHT, DEFAULT_PASS_THRESHOLD, effectiveThreshold } from './criterion.ts';
export type { Criterion, CriterionType } from './criterion.ts';
export { criteriaSchema, criterionSchema } from './criterion-schema.ts';
export {
  combineResults,
  DEFAULT_JUDGE_ATTEMPTS,
  judgeCriteria,
  judgeCriterion,
  missingToolCalls,
  overallPassed,
} from './criteria-judge.ts';
export type { CriterionOutcome, CriterionResult, JudgeOptions, JudgeVerdict } from './criteria-judge.ts';
export {
  buildJudgeRequest,
  DATA_SAFETY_RULE,
  DEFAULT_JUDGE_PREAMBLE,
  neutralize,
  RECORD_VERDICT_TOOL,
} from './judge-prompt.ts';
export type { JudgeContext } from './judge-prompt.ts';
export { extractJsonObject, parseVerdict } from './verdict-parser.ts';
export type { ParsedVerdict } from './verdict-parser.ts';
export { renderTranscript, toolCallsIn } from './transcript.ts';
export type { EventEntry, MessageEntry, ToolCallEntry, ToolResultEntry, TranscriptEntry } from './transcript.ts';
export { responseText } from './model-client.ts';
export type {
  ModelCallOptions,
  ModelClient,
  ModelContentBlock,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelTextBlock,
  ModelTool,
  ModelToolChoice,
  ModelToolResultBlock,
  ModelToolUseBlock,
  ModelUsage,
} from './model-client.ts';
export {
  backoffMs,
  createAnthropicModelClient,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_MODEL_MAX_RETRIES,
  DEFAULT_RETRY_BASE_MS,
  DEFAULT_RETRY_MAX_MS,
  isRetryable,
  ModelCallError,
  retryAfterMs,
} from './anthropic-model-client.ts';
export type { RetryInfo } from './anthropic-model-client.ts';
export {
  buildRubricRequest,
  DEFAULT_RUBRIC_PREAMBLE,
  JudgeOutputError,
  judgeRubric,
  parseRubricVerdict,
  rubricVerdictSchema,
} from './rubric-judge.ts';
export type { ParsedRubricVerdict, RubricJudgeOptions, RubricVerdict, RubricVerdictFields } from './rubric-judge.ts';
export { textModelClient, toPrompt } from './text-model-client.ts';
export type { ChatMessage, TextModel } from './text-model-client.ts';
export type { AnthropicModelClientOptions } from './anthropic-model-client.ts';
export {
  addExtraCaCertificates,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  modelSettingsFromEnv,
  stripBedrockSuffix,
} from './model-settings.ts';
export type { ModelSettings } from './model-settings.ts';
export { compactJson, isJsonObject } from './json-value.ts';
export type { JsonObject, JsonPrimitive, JsonValue } from './json-value.ts';
