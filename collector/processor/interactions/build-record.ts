/**
 * Builds the InteractionRecord from the spans of one interaction, in any dialect or
 * mix of dialects. Runs once per completed interaction; see README.md for the field-by-field rules.
 */
import { interactionIdOf, type InteractionRecord, type Message, type Usage } from '../../../src/model/records.ts';
import { nanosToIso, type AttributeValue, type SpanData } from '../../model/span.ts';
import {
  AGENT_NAME,
  AI_MODEL_ID,
  AI_MODEL_PROVIDER,
  AI_OPERATION_ID,
  AI_RESPONSE_FINISH_REASON,
  AI_TELEMETRY_FUNCTION_ID,
  DEPLOYMENT_ENVIRONMENT_NAME,
  ERROR_TYPE,
  EVALON_CONVERSATION_ENDED,
  EVALON_PREFIX,
  EVALUATION_ID_ATTRIBUTE,
  GEN_AI_AGENT_DESCRIPTION,
  GEN_AI_AGENT_ID,
  GEN_AI_AGENT_NAME,
  GEN_AI_AGENT_VERSION,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_NAME,
  GEN_AI_OUTPUT_TYPE,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_SYSTEM,
  OPENINFERENCE_SPAN_KIND,
  SERVICE_NAME,
  SERVICE_VERSION,
  SESSION_ID,
  TRACELOOP_ENTITY_NAME,
  TRACELOOP_SPAN_KIND,
  TRACELOOP_WORKFLOW_NAME,
  USER_ID,
} from '../../../src/model/attributes.ts';
import { agentIdOf, classifyInvocation, dialectAgentName, rolesOf } from './classify.ts';
import { conversationIdOf } from './conversation-id.ts';
import { exceptionMessageOf, str } from './dialects/attribute-values.ts';
import { textOf } from './dialects/messages.ts';
import { readSpan } from './dialects/read-span.ts';
import type { SpanView } from './dialects/span-view.ts';
import { buildTranscript } from './transcript.ts';

// Re-exported for the processor, which names the agent of a nested interaction from its span.
export { agentIdOf } from './classify.ts';

export interface InteractionSpans {
  /** The interaction span: the outermost invocation span of this interaction. */
  root: SpanData;
  /**
   * Every span of the interaction: root, merged nested invocation spans, all descendants — but NOT
   * the subtrees of nested interactions of other agents.
   */
  spans: SpanData[];
  /** Invocation spans of other agents directly nested in this one. */
  nested: Array<{ span: SpanData; interactionId: string; agentId: string }>;
  /** Interaction id of the enclosing interaction, when nested. */
  flowId?: string;
  completion: 'structural' | 'timeout';
}

/** Raw root span attributes copied into `record.attributes` (when present and small). */
export const RECORD_ATTRIBUTES: readonly string[] = [
  GEN_AI_OPERATION_NAME,
  GEN_AI_AGENT_ID,
  GEN_AI_AGENT_NAME,
  GEN_AI_AGENT_DESCRIPTION,
  GEN_AI_AGENT_VERSION,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_SYSTEM,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_RESPONSE_FINISH_REASONS,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OUTPUT_TYPE,
  ERROR_TYPE,
  // Always copied (not only as one of the capped evalon.* keys): it ends the conversation.
  EVALON_CONVERSATION_ENDED,
  OPENINFERENCE_SPAN_KIND,
  AGENT_NAME,
  SESSION_ID,
  USER_ID,
  TRACELOOP_SPAN_KIND,
  TRACELOOP_ENTITY_NAME,
  TRACELOOP_WORKFLOW_NAME,
  AI_OPERATION_ID,
  AI_TELEMETRY_FUNCTION_ID,
  AI_MODEL_ID,
  AI_MODEL_PROVIDER,
  AI_RESPONSE_FINISH_REASON,
];
/** Root attributes under this prefix are copied too (the application's own annotations). */
export const RECORD_ATTRIBUTE_PREFIX = EVALON_PREFIX;
/** Resource attributes copied into `record.attributes`. */
export const RECORD_RESOURCE_ATTRIBUTES: readonly string[] = [
  SERVICE_NAME,
  SERVICE_VERSION,
  DEPLOYMENT_ENVIRONMENT_NAME,
  EVALUATION_ID_ATTRIBUTE,
];
const MAX_ATTRIBUTE_STRING = 1024;
const MAX_PREFIXED_ATTRIBUTES = 32;

export function buildInteractionRecord(input: InteractionSpans): InteractionRecord {
  const { root } = input;
  const views = readViews(input);
  const rootView = views.find((view) => view.span.spanId === root.spanId)!;
  const invocations = [rootView, ...views.filter((view) => view.role === 'invocation' && view !== rootView)];
  const modelCalls = views.filter((view) => view.role === 'model_call');
  const lastModelCall = latestEnding(modelCalls);

  const askedFor =
    firstNonEmpty(invocations, (view) => withoutSystem(view.input())) ??
    (modelCalls.length > 0 ? nonEmpty(withoutSystem(modelCalls[0].input())) : undefined) ??
    firstNonEmpty(invocations, (view) => withoutSystem(view.plainInput())) ??
    [];
  const answered =
    nonEmpty(rootView.output()) ??
    firstNonEmpty(invocations.slice(1).sort(byEndDescending), (view) => view.output()) ??
    nonEmpty(lastModelCall?.output()) ??
    firstNonEmpty(invocations, (view) => view.plainOutput()) ??
    [];

  const { transcript, toolCalls } = buildTranscript({
    startNanos: root.startTimeUnixNano,
    endNanos: root.endTimeUnixNano,
    input: askedFor,
    output: answered,
    invocations,
    modelCalls,
    tools: views.filter((view) => view.role === 'tool'),
    nested: input.nested.map((nested) => ({
      startNanos: nested.span.startTimeUnixNano,
      agentId: nested.agentId,
      interactionId: nested.interactionId,
    })),
  });

  const invocation = classifyInvocation(root);
  const failed = root.status.code === 2 || str(root.attributes, ERROR_TYPE) !== undefined;
  const record: InteractionRecord = {
    interactionId: interactionIdOf(root.traceId, root.spanId),
    traceId: root.traceId,
    spanId: root.spanId,
    agentId: agentIdOf(root),
    roles: rolesOf(root),
    startTime: nanosToIso(root.startTimeUnixNano),
    endTime: nanosToIso(root.endTimeUnixNano),
    durationMs: Math.max(0, Math.round((root.endTimeUnixNano - root.startTimeUnixNano) / 1e3) / 1e3),
    failed,
    input: askedFor,
    output: answered,
    finalResponseText: finalText(answered),
    transcript,
    toolCalls,
    usage: interactionUsage(rootView, invocations, modelCalls),
    attributes: selectedAttributes(root),
    completion: input.completion,
  };
  const agentName =
    str(root.attributes, GEN_AI_AGENT_NAME) ?? (invocation ? dialectAgentName(invocation.dialect, root) : undefined);
  if (agentName !== undefined) record.agentName = agentName;
  const conversationId =
    conversationIdOf(root.attributes) ?? firstDefined(views, (view) => conversationIdOf(view.span.attributes));
  if (conversationId !== undefined) record.conversationId = conversationId;
  if (input.flowId !== undefined) record.flowId = input.flowId;
  if (failed) {
    const summary = root.status.message || str(root.attributes, ERROR_TYPE) || exceptionMessageOf(root);
    if (summary) record.failureSummary = summary;
  }
  const model = firstDefined(invocations, (view) => view.model) ?? lastDefined(modelCalls, (view) => view.model);
  if (model !== undefined) record.model = model;
  const provider =
    firstDefined(invocations, (view) => view.provider) ?? lastDefined(modelCalls, (view) => view.provider);
  if (provider !== undefined) record.provider = provider;
  return record;
}

/** One view per span in start order, without nested interactions' spans; the root always included. */
function readViews(input: InteractionSpans): SpanView[] {
  const excluded = new Set<string>();
  for (const nested of input.nested) excluded.add(nested.span.spanId);
  const seen = new Set<string>();
  const spans: SpanData[] = [];
  for (const span of [input.root, ...input.spans]) {
    if (seen.has(span.spanId) || (excluded.has(span.spanId) && span !== input.root)) continue;
    seen.add(span.spanId);
    spans.push(span);
  }
  spans.sort((a, b) => a.startTimeUnixNano - b.startTimeUnixNano || a.endTimeUnixNano - b.endTimeUnixNano);
  return spans.map(readSpan);
}

/**
 * Tokens are never double counted: the invocation span's totals when it has them, else the sum
 * over model-call spans, else the first merged invocation span with totals. Each count separately.
 */
function interactionUsage(rootView: SpanView, invocations: SpanView[], modelCalls: SpanView[]): Usage {
  const summed = sumUsage(modelCalls);
  const merged = invocations.find((view) => view !== rootView && view.usage !== undefined)?.usage;
  const usage: Usage = {};
  const inputTokens = rootView.usage?.inputTokens ?? summed.inputTokens ?? merged?.inputTokens;
  const outputTokens = rootView.usage?.outputTokens ?? summed.outputTokens ?? merged?.outputTokens;
  if (inputTokens !== undefined) usage.inputTokens = inputTokens;
  if (outputTokens !== undefined) usage.outputTokens = outputTokens;
  return usage;
}

function sumUsage(views: SpanView[]): Usage {
  const sum: Usage = {};
  for (const view of views) {
    if (view.usage?.inputTokens !== undefined) sum.inputTokens = (sum.inputTokens ?? 0) + view.usage.inputTokens;
    if (view.usage?.outputTokens !== undefined) sum.outputTokens = (sum.outputTokens ?? 0) + view.usage.outputTokens;
  }
  return sum;
}

/** The text of the final assistant message ("" when there is none). */
function finalText(output: Message[]): string {
  for (let i = output.length - 1; i >= 0; i--) {
    if (output[i].role === 'assistant') return textOf(output[i].parts);
  }
  return output.length > 0 ? textOf(output[output.length - 1].parts) : '';
}

function withoutSystem(messages: Message[] | undefined): Message[] | undefined {
  return messages?.filter((message) => message.role !== 'system' && message.role !== 'developer');
}

function nonEmpty(messages: Message[] | undefined): Message[] | undefined {
  return messages && messages.length > 0 ? messages : undefined;
}

function firstNonEmpty(views: SpanView[], read: (view: SpanView) => Message[] | undefined): Message[] | undefined {
  for (const view of views) {
    const messages = nonEmpty(read(view));
    if (messages) return messages;
  }
  return undefined;
}

function firstDefined<T>(views: SpanView[], read: (view: SpanView) => T | undefined): T | undefined {
  for (const view of views) {
    const value = read(view);
    if (value !== undefined) return value;
  }
  return undefined;
}

function lastDefined<T>(views: SpanView[], read: (view: SpanView) => T | undefined): T | undefined {
  for (let i = views.length - 1; i >= 0; i--) {
    const value = read(views[i]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function latestEnding(views: SpanView[]): SpanView | undefined {
  let latest: SpanView | undefined;
  for (const view of views) if (!latest || view.span.endTimeUnixNano >= latest.span.endTimeUnixNano) latest = view;
  return latest;
}

function byEndDescending(a: SpanView, b: SpanView): number {
  return b.span.endTimeUnixNano - a.span.endTimeUnixNano;
}

function selectedAttributes(root: SpanData): Record<string, unknown> {
  const selected: Record<string, unknown> = {};
  const copy = (key: string, value: AttributeValue | undefined) => {
    const kept = small(value);
    if (kept !== undefined) selected[key] = kept;
  };
  for (const key of RECORD_RESOURCE_ATTRIBUTES) copy(key, root.origin.resource[key]);
  for (const key of RECORD_ATTRIBUTES) copy(key, root.attributes[key]);
  let prefixed = 0;
  for (const key in root.attributes) {
    if (!key.startsWith(RECORD_ATTRIBUTE_PREFIX)) continue;
    if (++prefixed > MAX_PREFIXED_ATTRIBUTES) break;
    copy(key, root.attributes[key]);
  }
  return selected;
}

/** Primitives and arrays of primitives, strings up to MAX_ATTRIBUTE_STRING; content is never copied. */
function small(value: AttributeValue | undefined): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length <= MAX_ATTRIBUTE_STRING ? value : undefined;
  if (Array.isArray(value) && value.every((item) => ['string', 'number', 'boolean'].includes(typeof item))) {
    return value.every((item) => typeof item !== 'string' || item.length <= MAX_ATTRIBUTE_STRING) ? value : undefined;
  }
  return undefined;
}
