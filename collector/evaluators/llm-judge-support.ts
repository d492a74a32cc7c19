/**
 * What the two LLM judges (`llm-judge`, `criteria-judge`) share: the model client they call (from
 * the environment, with a per-evaluator `model`; each call reported to the runtime's judge-call
 * recorder, which makes it a `chat <model>` span under the evaluation's span), the interaction
 * record as the judge's transcript, and the token-usage attributes the telemetry exporter turns
 * into `gen_ai.client.token.usage`.
 */
import { ConfigPropertyTypeError } from '../../src/evaluation/errors.ts';
import type { Evaluation } from '../../src/evaluation/evaluation.ts';
import type { EvaluatorConfig } from '../../src/evaluation/evaluator-config.ts';
import {
  createAnthropicModelClient,
  type AnthropicModelClientOptions,
} from '../../src/judge/anthropic-model-client.ts';
import { DEFAULT_MAX_INPUT_TOKENS, MIN_MAX_INPUT_TOKENS } from '../../src/judge/input-budget.ts';
import type { JsonValue } from '../../src/judge/json-value.ts';
import type { CircuitBreakers } from '../../src/judge/circuit-breaker.ts';
import type { ModelClient, ModelUsage } from '../../src/judge/model-client.ts';
import { modelSettingsFromEnv } from '../../src/judge/model-settings.ts';
import { observeModelCalls, type ObservedModelClient } from '../../src/judge/observed-model-client.ts';
import type { JudgeTranscriptEntry } from '../../src/judge/transcript.ts';
import { EVALON_JUDGE_TRANSCRIPT_OMITTED_CHARS } from '../../src/model/attributes.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import type { JudgeCallRecorder, JudgeCallTrace } from './judge-calls.ts';
import { USAGE_ATTRIBUTES } from './usage-attributes.ts';

/** How a judge evaluator gets its model (tests inject the environment, a short backoff, or a client). */
export interface JudgeEvaluatorOptions {
  /** The environment the settings are read from at each evaluation (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Client options (retries, backoff) passed to `createAnthropicModelClient`. */
  client?: Omit<AnthropicModelClientOptions, 'env' | 'model'>;
  /** A ready client instead of the Anthropic one (the environment is then not read). */
  modelClient?: ModelClient;
}

/** Judges may take minutes (retries with backoff, several criteria): 5 minutes per evaluation. */
export const JUDGE_TIMEOUT_MS = 300_000;

const clients = new Map<string, ModelClient>();

/**
 * The client for one evaluation: the environment's (one per base URL, key and CA bundle, reused)
 * or the given one, behind the runtime's circuit breakers when it gives them, observed. It counts
 * the tokens of every call (`usage`, `calls`: a judge that fails after calling the model still
 * reports them), and given the runtime's `recorder` and the evaluation's `trace`, each call is
 * reported to it, timed by its clock (the runtime makes it a `chat <model>` span in the
 * interaction's trace, child of the evaluation's span). Without a recorder (the test kit, no traces
 * exported) nothing is reported.
 */
export function judgeModelClient(
  options: JudgeEvaluatorOptions,
  recorder?: JudgeCallRecorder,
  trace?: JudgeCallTrace,
  circuitBreakers?: CircuitBreakers,
): ObservedModelClient {
  const client = circuitBreakers ? behindBreakers(baseModelClient(options), circuitBreakers) : baseModelClient(options);
  if (!recorder || !trace) return observeModelCalls(client);
  return observeModelCalls(
    client,
    (report) => recorder.record({ ...trace, ...report }),
    () => recorder.now(),
  );
}

/** Every call asks the collector's breakers (the shared client is the same for every collector). */
function behindBreakers(client: ModelClient, circuitBreakers: CircuitBreakers): ModelClient {
  return {
    defaultModel: client.defaultModel,
    createMessage: (request, call = {}) => client.createMessage(request, { ...call, circuitBreakers }),
  };
}

function baseModelClient(options: JudgeEvaluatorOptions): ModelClient {
  if (options.modelClient) return options.modelClient;
  const env = options.env ?? process.env;
  const settings = modelSettingsFromEnv(env);
  // A client with an onRetry hook is the caller's own: not shared through the cache.
  if (options.client?.onRetry) return createAnthropicModelClient({ ...options.client, env });
  const key = JSON.stringify([
    settings.baseURL,
    settings.apiKey,
    settings.caCertsPath ?? '',
    settings.model,
    options.client ?? {},
  ]);
  let client = clients.get(key);
  if (!client) {
    if (clients.size >= 16) clients.clear();
    client = createAnthropicModelClient({ ...options.client, env });
    clients.set(key, client);
  }
  return client;
}

/** The `model` property, else the client's default (`EVALON_MODEL`, else the built-in default). */
export function judgeModelName(config: EvaluatorConfig, client: ModelClient): string {
  return config.has('model') ? config.getString('model').trim() || client.defaultModel : client.defaultModel;
}

/** An optional string property, by its documented snake_case key or a kebab-case alias. */
export function optionalText(config: EvaluatorConfig, evaluatorId: string, key: string): string | undefined {
  const alias = key.replaceAll('_', '-');
  if (config.has(key) && alias !== key && config.has(alias)) {
    throw new ConfigPropertyTypeError(key, `evaluator ${evaluatorId}: set "${key}" or "${alias}", not both`);
  }
  const which = config.has(key) ? key : alias !== key && config.has(alias) ? alias : undefined;
  if (which === undefined) return undefined;
  const value = config.getString(which).trim();
  return value === '' ? undefined : value;
}

/** An optional threshold from 0 to 1 (`pass_threshold`, or `pass-threshold`). */
export function optionalThreshold(
  config: EvaluatorConfig,
  evaluatorId: string,
  key = 'pass_threshold',
): number | undefined {
  const alias = key.replaceAll('_', '-');
  const which = config.has(key) ? key : config.has(alias) ? alias : undefined;
  if (which === undefined) return undefined;
  const value = config.getNumber(which);
  if (value < 0 || value > 1)
    throw new ConfigPropertyTypeError(
      which,
      `evaluator ${evaluatorId}: config property "${which}" must be a number from 0 to 1 (got ${value})`,
    );
  return value;
}

/**
 * `max_input_tokens` (or `max-input-tokens`): the tokens one judge request may take, estimated;
 * the transcript is shortened to fit (src/judge/input-budget.ts). Default 100,000.
 */
export function maxInputTokens(config: EvaluatorConfig, evaluatorId: string): number {
  const key = 'max_input_tokens';
  const alias = 'max-input-tokens';
  if (config.has(key) && config.has(alias))
    throw new ConfigPropertyTypeError(key, `evaluator ${evaluatorId}: set "${key}" or "${alias}", not both`);
  const which = config.has(key) ? key : config.has(alias) ? alias : undefined;
  if (which === undefined) return DEFAULT_MAX_INPUT_TOKENS;
  const value = config.getInt(which);
  if (value < MIN_MAX_INPUT_TOKENS)
    throw new ConfigPropertyTypeError(
      which,
      `evaluator ${evaluatorId}: config property "${which}" must be a whole number of at least ` +
        `${MIN_MAX_INPUT_TOKENS} (got ${value}) (the judge's instructions alone take several hundred tokens)`,
    );
  return value;
}

/** `evalon.judge.transcript.omitted_chars`: what the judge did not read of the transcript. */
export function transcriptAttributes(omittedChars: number): Record<string, number> {
  return { [EVALON_JUDGE_TRANSCRIPT_OMITTED_CHARS]: omittedChars };
}

/**
 * The interaction as the judge reads it: its transcript (messages by role, tool calls with their
 * results or errors, nested agents as events); without one, its input and output messages.
 */
export function judgeTranscript(record: InteractionRecord): JudgeTranscriptEntry[] {
  const entries: JudgeTranscriptEntry[] = [];
  for (const entry of record.transcript) {
    if (entry.type === 'message') entries.push({ type: 'message', sender: entry.role, content: entry.content });
    else if (entry.type === 'tool_call') {
      const args = json(entry.arguments);
      entries.push({ type: 'tool_call', tool: entry.name, arguments: args });
      if (entry.error !== undefined)
        entries.push({ type: 'tool_result', tool: entry.name, arguments: args, result: null, error: entry.error });
      else if (entry.result !== undefined)
        entries.push({ type: 'tool_result', tool: entry.name, arguments: args, result: json(entry.result) });
    } else if (entry.type === 'agent_call') {
      entries.push({
        type: 'event',
        name: 'agent_call',
        data: { agentId: entry.agentId, interactionId: entry.interactionId },
      });
    }
  }
  if (entries.length > 0) return entries;
  for (const message of [...record.input, ...record.output]) {
    const text = message.parts
      .flatMap((part) => (part.type === 'text' && typeof part.content === 'string' ? [part.content] : []))
      .join('\n');
    if (text !== '') entries.push({ type: 'message', sender: message.role, content: text });
  }
  if (entries.length === 0 && record.finalResponseText)
    entries.push({ type: 'message', sender: 'assistant', content: record.finalResponseText });
  return entries;
}

/** The names of the tools the interaction called (record's `toolCalls`, and its transcript's). */
export function calledTools(record: InteractionRecord): string[] {
  const names = record.toolCalls.map((call) => call.name);
  for (const entry of record.transcript) if (entry.type === 'tool_call') names.push(entry.name);
  return [...new Set(names)];
}

/** Adds `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.request.model` and the provider. */
export function withUsage(evaluation: Evaluation, usage: ModelUsage, model: string): Evaluation {
  let result = evaluation;
  for (const [key, value] of Object.entries(usageAttributes(usage, model))) result = result.withAttribute(key, value);
  return result;
}

/** The same attributes as a plain record: a failed outcome's `attributes` (a judge that failed after its calls). */
export function usageAttributes(usage: ModelUsage, model: string): Record<string, string | number> {
  return {
    [USAGE_ATTRIBUTES.inputTokens]: usage.input_tokens,
    [USAGE_ATTRIBUTES.outputTokens]: usage.output_tokens,
    [USAGE_ATTRIBUTES.model]: model,
    [USAGE_ATTRIBUTES.provider]: 'anthropic',
  };
}

function json(value: unknown): JsonValue {
  if (value === undefined) return null;
  // A tool result is often one long string (a fetched page): no copy needed.
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return String(value);
  }
}
