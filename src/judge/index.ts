/** The criteria judge: per-criterion LLM judging of a transcript, shared by simulation and collector. */
export { DEFAULT_CRITERION_WEIGHT, DEFAULT_PASS_THRESHOLD, effectiveThreshold } from './criterion.ts';
export type { Criterion, CriterionType } from './criterion.ts';
export { criteriaSchema, criterionSchema } from './criterion-schema.ts';
export { combineResults, DEFAULT_JUDGE_ATTEMPTS, judgeCriteria, judgeCriterion, missingToolCalls, overallPassed } from './criteria-judge.ts';
export type { CriterionOutcome, CriterionResult, JudgeOptions, JudgeVerdict } from './criteria-judge.ts';
export { buildJudgeRequest, DATA_SAFETY_RULE, DEFAULT_JUDGE_PREAMBLE, RECORD_VERDICT_TOOL } from './judge-prompt.ts';
export type { JudgeContext } from './judge-prompt.ts';
export { parseVerdict } from './verdict-parser.ts';
export type { ParsedVerdict } from './verdict-parser.ts';
export { renderTranscript, toolCallsIn } from './transcript.ts';
export type { EventEntry, MessageEntry, ToolCallEntry, ToolResultEntry, TranscriptEntry } from './transcript.ts';
export { responseText } from './model-client.ts';
export type {
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
export { createAnthropicModelClient, DEFAULT_MODEL_MAX_RETRIES } from './anthropic-model-client.ts';
export { textModelClient, toPrompt } from './text-model-client.ts';
export type { ChatMessage, TextModel } from './text-model-client.ts';
export type { AnthropicModelClientOptions } from './anthropic-model-client.ts';
export { addExtraCaCertificates, DEFAULT_BASE_URL, DEFAULT_MODEL, modelSettingsFromEnv, stripBedrockSuffix } from './model-settings.ts';
export type { ModelSettings } from './model-settings.ts';
export { compactJson, isJsonObject } from './json-value.ts';
export type { JsonObject, JsonPrimitive, JsonValue } from './json-value.ts';
