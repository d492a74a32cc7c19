/**
 * `invokeAgent(options, fn)`: runs one agent invocation inside an `invoke_agent` span (OTel GenAI
 * semconv), so that every span the agent makes — the Anthropic SDK's model calls, tool runs and
 * tool-runner loops — joins one interaction, and returns the agent's result with the id of that
 * interaction.
 *
 * Telemetry never hurts the agent: every telemetry step is guarded, `fn` runs even when a span
 * cannot be started, and what `fn` throws reaches the caller unchanged.
 */
import {
  context,
  createContextKey,
  diag,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  ERROR_TYPE,
  EVALON_AGENT_ROLES,
  EVALON_CONTENT_TRUNCATED,
  EVALON_CONVERSATION_ENDED,
  GEN_AI_AGENT_DESCRIPTION,
  GEN_AI_AGENT_ID,
  GEN_AI_AGENT_NAME,
  GEN_AI_AGENT_VERSION,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_INPUT_MESSAGES,
  GEN_AI_OPERATION_NAME,
  GEN_AI_OUTPUT_MESSAGES,
} from '../model/attributes.ts';
import { INSTRUMENTATION_SCOPE } from '../model/telemetry-names.ts';
import { encodeMessages, toMessages, type AgentInput } from './agent-messages.ts';
import { contentSettings } from './content-settings.ts';

/** The instrumentation scope of the agent spans. */
export { INSTRUMENTATION_SCOPE };

export type InvokeAgentOptions = {
  /** The agent's id (`gen_ai.agent.id`): the key evaluator bindings use. Required. */
  id: string;
  /** Human-readable name (`gen_ai.agent.name`); also names the span. */
  name?: string;
  description?: string;
  version?: string;
  /** The agent's roles (`evalon.agent.roles`), which evaluators can bind to. */
  roles?: string | readonly string[];
  /** The conversation (session, thread) this invocation belongs to (`gen_ai.conversation.id`). */
  conversationId?: string;
  /**
   * This turn ends the conversation (`evalon.conversation.ended = true`): the collector evaluates
   * the conversation as soon as the turn is recorded, without waiting for `conversation_idle`. A
   * later turn of the same conversation reopens it as its next revision.
   */
  endConversation?: boolean;
  /** What the agent is asked; recorded only when content capture is on. */
  input?: AgentInput;
  /** Overrides the process-wide content capture (`register({ captureContent })`) for this call. */
  captureContent?: boolean;
  /** More span attributes, e.g. the application's own `evalon.*` annotations. */
  attributes?: Attributes;
};

/** What `fn` receives while it runs. */
export interface AgentInvocation {
  /** The interaction this invocation belongs to, or undefined when it is not traced. */
  readonly interactionId: string | undefined;
  /** The `invoke_agent` span, to add attributes (usage, model) or events. */
  readonly span: Span;
}

export interface AgentReply<R> {
  /** What `fn` returned. */
  result: R;
  /**
   * `<trace id>-<span id>` of the interaction, as the collector's ledger knows it; undefined when
   * the invocation was not traced (no OpenTelemetry SDK registered, or not sampled).
   */
  interactionId: string | undefined;
}

/** The wrapped agent running in a context, so that a nested call knows its enclosing agent. */
interface EnclosingAgent {
  agentId: string;
  interactionId: string | undefined;
}

const ENCLOSING_AGENT = createContextKey('evalon.enclosing_agent');
const MAX_STATUS_MESSAGE = 1024;

interface Started {
  span: Span;
  context: Context;
  invocation: AgentInvocation;
  captureContent: boolean;
  maxContentBytes: number;
}

/**
 * Runs `fn`, the agent, as one invocation of the agent `options.id`, and resolves to its result
 * with the interaction id. Rejects with exactly what `fn` threw, after marking the span failed.
 *
 * A nested call of another agent is an interaction of its own (the collector records the
 * enclosing one as its `flowId`); a nested call of the same agent belongs to the enclosing
 * interaction, whose id it returns.
 */
export async function invokeAgent<R>(
  options: InvokeAgentOptions,
  fn: (invocation: AgentInvocation) => R | PromiseLike<R>,
): Promise<AgentReply<Awaited<R>>> {
  const started = start(options);
  if (!started) {
    return {
      result: await fn({ interactionId: undefined, span: trace.wrapSpanContext(INVALID_CONTEXT) }),
      interactionId: undefined,
    };
  }
  let result: Awaited<R>;
  try {
    result = await context.with(started.context, fn, undefined, started.invocation);
  } catch (error) {
    guarded(() => endFailed(started.span, error));
    throw error;
  }
  guarded(() => endSucceeded(started, result));
  return { result, interactionId: started.invocation.interactionId };
}

const INVALID_CONTEXT = { traceId: '00000000000000000000000000000000', spanId: '0000000000000000', traceFlags: 0 };

function start(options: InvokeAgentOptions): Started | undefined {
  return guarded(() => {
    const parent = context.active();
    const id = typeof options?.id === 'string' && options.id !== '' ? options.id : undefined;
    if (id === undefined)
      warnOnce('invokeAgent: options.id is missing; the collector will name the agent after service.name');
    const settings = contentSettings();
    const captureContent = options.captureContent ?? settings.captureContent;
    const span = tracer().startSpan(
      `invoke_agent ${options.name || id || ''}`.trimEnd(),
      { kind: SpanKind.INTERNAL, attributes: agentAttributes(options, id) },
      parent,
    );
    if (captureContent && options.input !== undefined) {
      setMessages(span, GEN_AI_INPUT_MESSAGES, toMessages(options.input, 'user'), settings.maxContentBytes);
    }
    const spanContext = span.spanContext();
    const own =
      span.isRecording() && isSpanContextValid(spanContext)
        ? `${spanContext.traceId}-${spanContext.spanId}`
        : undefined;
    const enclosing = parent.getValue(ENCLOSING_AGENT) as EnclosingAgent | undefined;
    // The same agent nested in itself is one interaction for the collector: report the outer one.
    const interactionId =
      enclosing !== undefined && id !== undefined && enclosing.agentId === id ? enclosing.interactionId : own;
    const agent: EnclosingAgent = { agentId: id ?? '', interactionId };
    return {
      span,
      context: trace.setSpan(parent, span).setValue(ENCLOSING_AGENT, agent),
      invocation: { interactionId, span },
      captureContent,
      maxContentBytes: settings.maxContentBytes,
    };
  });
}

function agentAttributes(options: InvokeAgentOptions, id: string | undefined): Attributes {
  // The application's own attributes first: the semconv ones below always win.
  const attributes: Attributes = { ...options.attributes, [GEN_AI_OPERATION_NAME]: 'invoke_agent' };
  if (id !== undefined) attributes[GEN_AI_AGENT_ID] = id;
  if (options.name) attributes[GEN_AI_AGENT_NAME] = options.name;
  if (options.description) attributes[GEN_AI_AGENT_DESCRIPTION] = options.description;
  if (options.version) attributes[GEN_AI_AGENT_VERSION] = options.version;
  if (options.conversationId) attributes[GEN_AI_CONVERSATION_ID] = options.conversationId;
  if (options.endConversation === true) attributes[EVALON_CONVERSATION_ENDED] = true;
  const roles = rolesOf(options.roles);
  if (roles) attributes[EVALON_AGENT_ROLES] = roles;
  return attributes;
}

function rolesOf(roles: InvokeAgentOptions['roles']): string[] | undefined {
  const list = typeof roles === 'string' ? [roles] : Array.isArray(roles) ? roles : [];
  const kept = list.filter((role): role is string => typeof role === 'string' && role !== '');
  return kept.length > 0 ? kept : undefined;
}

function endSucceeded(started: Started, result: unknown): void {
  if (started.captureContent) {
    setMessages(started.span, GEN_AI_OUTPUT_MESSAGES, toMessages(result, 'assistant'), started.maxContentBytes);
  }
  started.span.end();
}

function endFailed(span: Span, error: unknown): void {
  try {
    const message = messageOf(error);
    span.setStatus(message ? { code: SpanStatusCode.ERROR, message } : { code: SpanStatusCode.ERROR });
    span.setAttribute(ERROR_TYPE, errorTypeOf(error));
    if (error instanceof Error) span.recordException(error);
  } finally {
    span.end();
  }
}

function setMessages(span: Span, key: string, messages: ReturnType<typeof toMessages>, maxBytes: number): void {
  if (!messages) return;
  const encoded = encodeMessages(messages, maxBytes);
  if (!encoded) return;
  span.setAttribute(key, encoded.json);
  if (encoded.truncated) span.setAttribute(EVALON_CONTENT_TRUNCATED, true);
}

/**
 * A low-cardinality `error.type`: the error's class name (`TypeError`, `GuardrailError`), else its
 * `name`, else `_OTHER` (semconv's fallback) for thrown values that are not errors.
 */
export function errorTypeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '_OTHER';
  const className = (error as { constructor?: { name?: unknown } }).constructor?.name;
  if (typeof className === 'string' && className !== '' && className !== 'Object') return className;
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : '_OTHER';
}

function messageOf(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : undefined;
  if (!message) return undefined;
  return message.length > MAX_STATUS_MESSAGE ? message.slice(0, MAX_STATUS_MESSAGE) : message;
}

let cachedProvider: TracerProvider | undefined;
let cachedTracer: Tracer | undefined;

/** The global provider's tracer, looked up again only when the global provider object changes. */
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (provider !== cachedProvider || cachedTracer === undefined) {
    cachedProvider = provider;
    cachedTracer = provider.getTracer(INSTRUMENTATION_SCOPE);
  }
  return cachedTracer;
}

const warned = new Set<string>();
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  diag.warn(message);
}

/** Runs a telemetry step; what it throws is logged, never raised to the application. */
function guarded<T>(step: () => T): T | undefined {
  try {
    return step();
  } catch (problem) {
    try {
      diag.debug('evalon: could not record telemetry', problem);
    } catch {
      // A failing diag logger must not fail the agent either.
    }
    return undefined;
  }
}
