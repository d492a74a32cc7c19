/**
 * The model client the judge and the simulation share: the subset of the Anthropic Messages API
 * they need, in its wire shape (snake_case), so requests can be hashed, recorded and replayed and
 * any Messages-compatible endpoint (or a test double) can stand behind it.
 */
import type { CircuitBreakers } from './circuit-breaker.ts';
import type { JsonObject } from './json-value.ts';

export interface ModelTextBlock {
  type: 'text';
  text: string;
}

export interface ModelToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: JsonObject;
}

export interface ModelToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

export type ModelContentBlock = ModelTextBlock | ModelToolUseBlock | ModelToolResultBlock;

export interface ModelMessage {
  role: 'user' | 'assistant';
  content: string | ModelContentBlock[];
}

export interface ModelTool {
  name: string;
  /** Optional in the Messages API; a tool without one is shown by its name and schema. */
  description?: string;
  input_schema: JsonObject;
}

export type ModelToolChoice = { type: 'auto' } | { type: 'any' } | { type: 'tool'; name: string };

export interface ModelRequest {
  /** Absent: the client's default model. */
  model?: string;
  max_tokens: number;
  system?: string;
  messages: ModelMessage[];
  tools?: ModelTool[];
  tool_choice?: ModelToolChoice;
  temperature?: number;
}

export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface ModelResponse {
  id?: string;
  model?: string;
  /** Only text and tool_use blocks; clients drop any other block type. */
  content: Array<ModelTextBlock | ModelToolUseBlock>;
  stop_reason: string | null;
  usage: ModelUsage;
}

/** A failed attempt of one call that the client is about to retry. */
export interface ModelCallRetry {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** HTTP status, when the server answered. */
  status?: number;
  /** Low-cardinality: the provider's error code (`overloaded_error`), else the status, else the error's name. */
  errorType: string;
  /** The wait before the next attempt, milliseconds. */
  delayMs: number;
}

/** Per-call options a client may honour. */
export interface ModelCallOptions {
  /** Aborts the call (and any wait between retries). */
  signal?: AbortSignal;
  /** Called before each retry's wait, so a caller can show every attempt (judge call spans do). */
  onRetry?: (retry: ModelCallRetry) => void;
  /**
   * The caller's circuit breakers (one per base URL and model): each HTTP attempt asks its
   * endpoint's breaker first and reports how it went; an open circuit refuses the call at once
   * with a retryable `CircuitOpenError`. Clients that do not speak to an endpoint ignore it.
   */
  circuitBreakers?: CircuitBreakers;
}

export interface ModelClient {
  /** The model used when a request names none. */
  readonly defaultModel: string;
  createMessage(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}

/** The text blocks of a reply joined by newlines, or "" when it has none. */
export function responseText(response: ModelResponse): string {
  const texts = response.content.filter((block): block is ModelTextBlock => block.type === 'text');
  return texts.length === 0 ? '' : texts.map((block) => block.text).join('\n');
}
