/**
 * A ModelClient that reports each call it makes: what was asked (model, max_tokens, temperature),
 * when it started and ended, every retried attempt, and what came back (id, model, stop reason,
 * tokens) or how it failed. The collector turns the reports into judge call spans and counts the
 * tokens a judge spent, also when the judge fails afterwards.
 *
 * The report never holds message content (prompts carry the judged interaction's text).
 */
import { CircuitOpenError } from './circuit-breaker.ts';
import type {
  ModelCallOptions,
  ModelCallRetry,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelUsage,
} from './model-client.ts';

export interface ModelCallReport {
  /** The model asked (the client's default when the request names none). */
  requestModel: string;
  maxTokens: number;
  temperature?: number;
  /** Unix milliseconds. */
  startTimeMs: number;
  endTimeMs: number;
  /** Retried attempts, in order, with when each was given up (Unix ms). */
  retries: Array<ModelCallRetry & { timeMs: number }>;
  response?: { id?: string; model?: string; stopReason: string | null; usage: ModelUsage };
  /** Set when the call failed for good (or was aborted). */
  error?: { type: string; message: string };
}

export interface ObservedModelClient extends ModelClient {
  /** Tokens of every call answered so far. */
  readonly usage: ModelUsage;
  /** Calls answered so far. */
  readonly calls: number;
}

/**
 * Wraps `client`; `onCall` runs once per call, after it settles, and must not throw (a throw is
 * swallowed: observing never fails the call). `now` is the clock (tests may inject one).
 */
export function observeModelCalls(
  client: ModelClient,
  onCall?: (report: ModelCallReport) => void,
  now: () => number = Date.now,
): ObservedModelClient {
  const usage: ModelUsage = { input_tokens: 0, output_tokens: 0 };
  let calls = 0;
  const report = (value: ModelCallReport) => {
    try {
      onCall?.(value);
    } catch {
      // Telemetry must not change the judge's result.
    }
  };
  return {
    get defaultModel() {
      return client.defaultModel;
    },
    usage,
    get calls() {
      return calls;
    },
    async createMessage(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
      const retries: ModelCallReport['retries'] = [];
      const asked = {
        requestModel: request.model ?? client.defaultModel,
        maxTokens: request.max_tokens,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        startTimeMs: now(),
      };
      const onRetry = (retry: ModelCallRetry) => {
        retries.push({ ...retry, timeMs: now() });
        options.onRetry?.(retry);
      };
      try {
        const response = await client.createMessage(request, { ...options, onRetry });
        calls++;
        usage.input_tokens += response.usage.input_tokens;
        usage.output_tokens += response.usage.output_tokens;
        report({
          ...asked,
          endTimeMs: now(),
          retries,
          response: {
            ...(response.id !== undefined ? { id: response.id } : {}),
            ...(response.model !== undefined ? { model: response.model } : {}),
            stopReason: response.stop_reason,
            usage: { ...response.usage },
          },
        });
        return response;
      } catch (error) {
        // A call the circuit breaker refused never reached the model: nothing to report.
        if (error instanceof CircuitOpenError) throw error;
        report({
          ...asked,
          endTimeMs: now(),
          retries,
          error: { type: errorTypeOf(error), message: error instanceof Error ? error.message : String(error) },
        });
        throw error;
      }
    },
  };
}

/** `errorType` when the error names one (ModelCallError), else its name, else semconv's `_OTHER`. */
function errorTypeOf(error: unknown): string {
  const named = (error as { errorType?: unknown } | null)?.errorType;
  if (typeof named === 'string' && named !== '') return named;
  return error instanceof Error && error.name ? error.name : '_OTHER';
}
