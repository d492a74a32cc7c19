/**
 * Which dialect a span speaks, and its part in the interaction in that dialect: the one answer
 * both the invocation classifier (`classify.ts`, on every received span) and the record builder's
 * readers (`read-span.ts`, once per interaction) use.
 *
 * A span speaks the most specific dialect it carries: the Anthropic SDK by its scope (or its
 * tool-runner span), OpenInference and Traceloop by their span-kind attributes, GenAI semconv when
 * `gen_ai.operation.name` is set, the Vercel AI SDK by its `ai.*` span names, and semconv again
 * for everything else (legacy `gen_ai.system` / `gen_ai.prompt.<i>` spans, HTTP spans, …). So a
 * Traceloop or OpenInference span that also carries `gen_ai.*` is read in its own dialect, and a
 * span with `gen_ai.operation.name` is semconv whatever its name.
 *
 * Both functions only read properties: no allocation on the path every span takes.
 */
import {
  GEN_AI_OPERATION_NAME,
  OPENINFERENCE_SPAN_KIND,
  TRACELOOP_SPAN_KIND,
} from '../../../../src/model/attributes.ts';
import type { SpanHead } from '../../../model/span.ts';
import { anthropicRole, isAnthropicSpan } from './anthropic.ts';
import { openInferenceRole } from './openinference.ts';
import { semconvRole } from './semconv.ts';
import type { SpanRole } from './span-view.ts';
import { traceloopRole } from './traceloop.ts';
import { isVercelSpan, vercelRole } from './vercel.ts';

export type Dialect = 'semconv' | 'anthropic' | 'openinference' | 'traceloop' | 'vercel';

export function dialectOf(span: SpanHead): Dialect {
  if (isAnthropicSpan(span)) return 'anthropic';
  const attributes = span.attributes;
  if (attributes[OPENINFERENCE_SPAN_KIND] !== undefined) return 'openinference';
  if (attributes[TRACELOOP_SPAN_KIND] !== undefined) return 'traceloop';
  if (attributes[GEN_AI_OPERATION_NAME] !== undefined) return 'semconv';
  if (isVercelSpan(span)) return 'vercel';
  return 'semconv';
}

/** The span's part as its dialect says it: invocation, model call, tool, or other. */
export function roleIn(dialect: Dialect, span: SpanHead): SpanRole {
  switch (dialect) {
    case 'anthropic':
      return anthropicRole(span);
    case 'openinference':
      return openInferenceRole(span.attributes[OPENINFERENCE_SPAN_KIND]);
    case 'traceloop':
      return traceloopRole(span.attributes[TRACELOOP_SPAN_KIND]);
    case 'vercel':
      return vercelRole(span);
    case 'semconv':
      return semconvRole(span);
  }
}
