/**
 * Picks the dialect reader for one span. A span is read in the most specific dialect it carries:
 * the Anthropic SDK by its scope, OpenInference and Traceloop by their span-kind attributes, then
 * GenAI semconv when `gen_ai.operation.name` is set, then the Vercel AI SDK by its `ai.*` span
 * names, and finally semconv again for legacy spans (gen_ai.system, gen_ai.prompt.N) and the rest.
 */
import type { SpanData } from '../../../model/span.ts';
import { isAnthropicSpan, readAnthropic } from './anthropic.ts';
import { readOpenInference } from './openinference.ts';
import { readSemconv } from './semconv.ts';
import type { SpanView } from './span-view.ts';
import { readTraceloop } from './traceloop.ts';
import { isVercelSpan, readVercel } from './vercel.ts';

export function readSpan(span: SpanData): SpanView {
  const attributes = span.attributes;
  if (isAnthropicSpan(span)) return readAnthropic(span);
  if (attributes['openinference.span.kind'] !== undefined) return readOpenInference(span);
  if (attributes['traceloop.span.kind'] !== undefined) return readTraceloop(span);
  if (attributes['gen_ai.operation.name'] !== undefined) return readSemconv(span);
  if (isVercelSpan(span)) return readVercel(span);
  return readSemconv(span);
}

export type { SpanRole, SpanView } from './span-view.ts';
