/**
 * Evaluation attributes an LLM judge sets to report its token usage (GenAI semantic conventions);
 * the telemetry exporter reads them back into `gen_ai.client.token.usage` (see docs/metrics.md).
 */
export const USAGE_ATTRIBUTES = {
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  provider: 'gen_ai.provider.name',
  model: 'gen_ai.request.model',
} as const;
