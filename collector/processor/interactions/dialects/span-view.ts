/**
 * What a dialect reader makes of one span: its part in the interaction and its content in the
 * record's vocabulary. The record builder works on views only, so one interaction may mix dialects
 * (an application's semconv `invoke_agent` span over the Anthropic SDK's spans, a Traceloop agent
 * over legacy gen_ai.prompt LLM spans).
 *
 * Message content is read lazily: only the spans whose messages the record needs are parsed (a
 * long agent loop repeats the whole history on every model call).
 */
import type { Message, ToolCall, Usage } from '../../../../src/model/records.ts';
import type { SpanData } from '../../../model/span.ts';

/** The span's part: the agent invocation, one model (LLM) call, one tool execution, or anything else. */
export type SpanRole = 'invocation' | 'model_call' | 'tool' | 'other';

export interface SpanView {
  readonly span: SpanData;
  readonly role: SpanRole;
  /** Structured input messages (system ones included); undefined when the span records none. */
  input(): Message[] | undefined;
  /** Structured output messages; undefined when the span records none. */
  output(): Message[] | undefined;
  /** A dialect's plain-value input (OpenInference `input.value`, Traceloop `traceloop.entity.input`) as messages. */
  plainInput(): Message[] | undefined;
  /** A dialect's plain-value output (`output.value`, `traceloop.entity.output`) as messages. */
  plainOutput(): Message[] | undefined;
  /** This span's own token counts; undefined when it carries none. */
  readonly usage?: Usage;
  readonly model?: string;
  readonly provider?: string;
  /** For a tool span: the call it executed. */
  readonly tool?: ToolCall;
}

export const NONE = (): undefined => undefined;

/** Memoizes a reader so that an attribute is parsed at most once per build. */
export function once<T>(read: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = read();
      done = true;
    }
    return value;
  };
}

/** A usage value, or undefined when neither count is known. */
export function usageOf(inputTokens: number | undefined, outputTokens: number | undefined): Usage | undefined {
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  const usage: Usage = {};
  if (inputTokens !== undefined) usage.inputTokens = inputTokens;
  if (outputTokens !== undefined) usage.outputTokens = outputTokens;
  return usage;
}
