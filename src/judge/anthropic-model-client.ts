/**
 * A ModelClient over the official Anthropic SDK, shared by the simulation and the collector's LLM
 * judges. Settings come from the environment (see model-settings.ts) unless given.
 *
 * Retries are done here, not by the SDK (its `maxRetries` is 0), so the backoff can be tuned and
 * tested: 429, 408, 409, 5xx (529 "overloaded" included) and connection errors are retried up to
 * `maxRetries` times. The wait is the server's `retry-after-ms` / `retry-after` when it sends one
 * (up to `maxRetryAfterMs`; a longer one ends the retries), else exponential backoff from
 * `retryBaseMs` (×2 per retry, at most `retryMaxMs`, minus up to 25% jitter). When the retries are
 * used up, or the error is not retryable (400, 401, 403, 404…), a `ModelCallError` says which,
 * with the status and the API's message.
 *
 * Given circuit breakers in the call options (`circuitBreakers`), every attempt first asks the
 * breaker of its base URL and model, and reports to it how it went (circuit-breaker.ts): while the
 * circuit is open the call ends at once with a `CircuitOpenError`, so retries stop there too.
 */
import Anthropic from '@anthropic-ai/sdk';
import { CircuitOpenError } from './circuit-breaker.ts';
import type { JsonObject } from './json-value.ts';
import type {
  ModelCallOptions,
  ModelCallRetry,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelTextBlock,
  ModelToolUseBlock,
} from './model-client.ts';
import {
  addExtraCaCertificates,
  modelSettingsFromEnv,
  stripBedrockSuffix,
  type ModelSettings,
} from './model-settings.ts';

export const DEFAULT_MODEL_MAX_RETRIES = 3;
export const DEFAULT_RETRY_BASE_MS = 500;
export const DEFAULT_RETRY_MAX_MS = 8_000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

export interface RetryInfo extends ModelCallRetry {
  error: unknown;
}

export interface AnthropicModelClientOptions extends Partial<ModelSettings> {
  /** Retries after the first call (default 3; 0 disables retries). */
  maxRetries?: number;
  /** First backoff delay, milliseconds (default 500). Tests set a few ms. */
  retryBaseMs?: number;
  /** Longest backoff delay, milliseconds (default 8 000). */
  retryMaxMs?: number;
  /** Longest `retry-after` honoured, milliseconds (default 60 000); a longer one is not waited for. */
  maxRetryAfterMs?: number;
  /** Called before each retry's wait (for logs and tests). */
  onRetry?: (info: RetryInfo) => void;
  /** Per-request timeout, milliseconds (the SDK's default otherwise). */
  timeoutMs?: number;
  /** Read unset settings from this environment (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** A model call that failed for good: not retryable, or retried `attempts - 1` times. */
export class ModelCallError extends Error {
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
  readonly attempts: number;
  readonly retryable: boolean;
  /**
   * `error.type` in telemetry: the API's error code (`overloaded_error`…), else the status, else
   * the cause's name.
   */
  readonly errorType: string;
  constructor(
    message: string,
    details: { status: number | undefined; attempts: number; retryable: boolean; cause?: unknown },
  ) {
    super(message, { cause: details.cause });
    this.name = 'ModelCallError';
    this.status = details.status;
    this.attempts = details.attempts;
    this.retryable = details.retryable;
    this.errorType = errorTypeOf(details.cause);
  }
}

export function createAnthropicModelClient(options: AnthropicModelClientOptions = {}): ModelClient {
  const settings = { ...modelSettingsFromEnv(options.env), ...definedOnly(options) };
  if (settings.caCertsPath) addExtraCaCertificates(settings.caCertsPath);
  const baseURL = stripBedrockSuffix(settings.baseURL);
  const sdk = new Anthropic({
    apiKey: settings.apiKey || 'unset',
    baseURL,
    maxRetries: 0,
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
  });
  const maxRetries = Math.max(0, options.maxRetries ?? DEFAULT_MODEL_MAX_RETRIES);
  const retryBaseMs = Math.max(0, options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS);
  const retryMaxMs = Math.max(retryBaseMs, options.retryMaxMs ?? DEFAULT_RETRY_MAX_MS);
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;

  async function callOnce(request: ModelRequest, call: ModelCallOptions): Promise<ModelResponse> {
    const body = { ...request, model: request.model ?? settings.model };
    const message = await sdk.messages.create(body as never, call.signal ? { signal: call.signal } : undefined);
    const reply = message as unknown as {
      id: string;
      model: string;
      content: Array<Record<string, unknown>>;
      stop_reason: string | null;
      usage: { input_tokens: number | null; output_tokens: number };
    };
    return {
      id: reply.id,
      model: reply.model,
      content: reply.content.flatMap((block): Array<ModelTextBlock | ModelToolUseBlock> => {
        if (block.type === 'text') return [{ type: 'text', text: String(block.text ?? '') }];
        if (block.type === 'tool_use') {
          return [
            {
              type: 'tool_use',
              id: String(block.id),
              name: String(block.name),
              input: (block.input ?? {}) as JsonObject,
            },
          ];
        }
        return [];
      }),
      stop_reason: reply.stop_reason,
      usage: { input_tokens: reply.usage?.input_tokens ?? 0, output_tokens: reply.usage?.output_tokens ?? 0 },
    };
  }

  return {
    defaultModel: settings.model,
    async createMessage(request: ModelRequest, call: ModelCallOptions = {}): Promise<ModelResponse> {
      const breaker = call.circuitBreakers?.for(baseURL, request.model ?? settings.model);
      for (let attempt = 1; ; attempt++) {
        const permit = breaker?.acquire();
        if (breaker && !permit)
          throw new CircuitOpenError(
            request.model ?? settings.model,
            baseURL,
            breaker.retryInMs(),
            breaker.lastFailure(),
          );
        try {
          const response = await callOnce(request, call);
          permit?.succeeded();
          return response;
        } catch (error) {
          if (call.signal?.aborted || error instanceof Anthropic.APIUserAbortError) {
            permit?.released();
            throw error;
          }
          const status = error instanceof Anthropic.APIError ? error.status : undefined;
          const retryable = isRetryable(error);
          // An answer that is not an outage (a 400) says the endpoint is up.
          if (retryable) permit?.failed(describeError(error));
          else permit?.succeeded();
          const model = request.model ?? settings.model;
          if (!retryable) {
            throw new ModelCallError(`model call to ${model} failed: ${describeError(error)} (not retried)`, {
              status,
              attempts: attempt,
              retryable,
              cause: error,
            });
          }
          const retryAfter = retryAfterMs(error);
          if (attempt > maxRetries || (retryAfter !== undefined && retryAfter > maxRetryAfterMs)) {
            const why =
              attempt > maxRetries
                ? `after ${attempt} attempt(s)`
                : ': the server asked to retry after ' +
                  `${Math.round(retryAfter! / 1000)} s, longer than ${Math.round(maxRetryAfterMs / 1000)} s`;
            throw new ModelCallError(`model call to ${model} failed ${why}: ${describeError(error)}`, {
              status,
              attempts: attempt,
              retryable,
              cause: error,
            });
          }
          const delayMs = retryAfter ?? backoffMs(attempt, retryBaseMs, retryMaxMs);
          const retry = {
            attempt,
            ...(status !== undefined ? { status } : {}),
            errorType: errorTypeOf(error),
            delayMs,
          };
          options.onRetry?.({ ...retry, error });
          call.onRetry?.(retry);
          await sleep(delayMs, call.signal);
        }
      }
    },
  };
}

/** 408, 409, 429, 5xx (529 included), connection errors and unreadable 200 bodies. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof Anthropic.APIUserAbortError) return false;
  if (error instanceof Anthropic.APIConnectionError) return true;
  if (error instanceof Anthropic.APIError) {
    const should = error.headers?.get('x-should-retry');
    if (should === 'true') return true;
    if (should === 'false') return false;
    const status = error.status ?? 0;
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }
  // A 200 whose body is not JSON: the SDK throws a SyntaxError; a glitch worth one more try.
  return error instanceof SyntaxError;
}

/**
 * The model refused the request because its input exceeds the model's context window: a 400
 * `invalid_request_error` whose message says "prompt is too long" (any letter case), or the
 * `prompt_too_long` error code. Looked for along the `cause` chain (a `ModelCallError` wraps the
 * SDK's error), and on any error with status 400 whose message carries both (a recorded error
 * replayed by the simulation). The judge answers it by halving its input budget, once.
 */
export function isPromptTooLongError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof Anthropic.APIError) {
      if (current.status !== 400) return false;
      if (current.errorCode === 'prompt_too_long') return true;
      return current.type === 'invalid_request_error' && PROMPT_TOO_LONG.test(current.apiMessage ?? current.message);
    }
    const status = (current as { status?: unknown }).status;
    if (status === 400 && INVALID_REQUEST.test(current.message) && PROMPT_TOO_LONG.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

const PROMPT_TOO_LONG = /prompt is too long/i;
const INVALID_REQUEST = /invalid_request_error/i;

/** The `retry-after-ms` or `retry-after` (seconds or an HTTP date) of an API error, in ms. */
export function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof Anthropic.APIError) || !error.headers) return undefined;
  const ms = Number.parseFloat(error.headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const header = error.headers.get('retry-after');
  if (!header) return undefined;
  const seconds = Number.parseFloat(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** base·2^(attempt-1), capped at max, minus up to 25% jitter. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** (attempt - 1), maxMs) * (1 - Math.random() * 0.25);
}

/** The API's error code (`overloaded_error`, `rate_limit_error`…), else the HTTP status, else the error's name. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof Anthropic.APIError) {
    if (error.type) return error.type;
    if (error.status !== undefined) return String(error.status);
  }
  return error instanceof Error ? error.name : '_OTHER';
}

function describeError(error: unknown): string {
  if (error instanceof Anthropic.APIError && error.status !== undefined) {
    const type = error.type ? ` ${error.type}` : '';
    return `${error.status}${type}: ${error.apiMessage ?? error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function definedOnly(options: AnthropicModelClientOptions): Partial<ModelSettings> {
  const out: Partial<ModelSettings> = {};
  if (options.baseURL !== undefined) out.baseURL = options.baseURL;
  if (options.apiKey !== undefined) out.apiKey = options.apiKey;
  if (options.model !== undefined) out.model = options.model;
  if (options.caCertsPath !== undefined) out.caCertsPath = options.caCertsPath;
  return out;
}
