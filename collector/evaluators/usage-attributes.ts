/**
 * Evaluation attributes an LLM judge sets to report its token usage (GenAI semantic conventions);
 * the telemetry exporter reads them back into `gen_ai.client.token.usage` (see docs/metrics.md).
 */
import {
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_USAGE_OUTPUT_TOKENS,
} from '../../src/model/attributes.ts';
export const USAGE_ATTRIBUTES = {
  inputTokens: GEN_AI_USAGE_INPUT_TOKENS,
  outputTokens: GEN_AI_USAGE_OUTPUT_TOKENS,
  provider: GEN_AI_PROVIDER_NAME,
  model: GEN_AI_REQUEST_MODEL,
} as const;
