/**
 * Which spans are agent invocations (spec §2.1), and who the agent is (§2.2).
 *
 * `classifyInvocation` runs on every received span, so its negative path is a handful of property
 * reads and one set lookup, with no allocation. Everything else here runs once per interaction.
 */
import type { AttributeValue, Attributes, SpanData } from '../../model/span.ts';

export type Dialect = 'semconv' | 'anthropic' | 'openinference' | 'traceloop' | 'vercel';

export interface Invocation {
  dialect: Dialect;
  /**
   * The agent identity the span names itself, or undefined when it names none. An invocation
   * nested in another with no identity, or the same one, belongs to the enclosing interaction.
   */
  agentIdentity?: string;
}

/** The Vercel AI SDK's top-level calls; their `.doGenerate` / `.doStream` children are model calls. */
const VERCEL_ROOT_SPANS: ReadonlySet<string> = new Set([
  'ai.generateText',
  'ai.streamText',
  'ai.generateObject',
  'ai.streamObject',
]);

const ANTHROPIC_TOOL_RUNNER_SPAN = 'anthropic.messages.tool_runner';

/** The resource fallback for an agent that names itself nowhere. */
export const UNKNOWN_AGENT = 'unknown_agent';

/** The invocation `span` is, or undefined when it is none. */
export function classifyInvocation(span: SpanData): Invocation | undefined {
  const attributes = span.attributes;
  // The dialect-specific markers come first: a span carrying one of them and gen_ai.* as well
  // (newer OpenLLMetry, OpenInference bridges) still names its agent in its own dialect.
  const openInferenceKind = attributes['openinference.span.kind'];
  if (openInferenceKind === 'AGENT' || openInferenceKind === 'agent') {
    return invocation('openinference', span);
  }
  const traceloopKind = attributes['traceloop.span.kind'];
  if (traceloopKind === 'agent') {
    return invocation('traceloop', span);
  }
  if (attributes['gen_ai.operation.name'] === 'invoke_agent') {
    return invocation(span.name === ANTHROPIC_TOOL_RUNNER_SPAN ? 'anthropic' : 'semconv', span);
  }
  if (VERCEL_ROOT_SPANS.has(span.name)) {
    return invocation('vercel', span);
  }
  return undefined;
}

function invocation(dialect: Dialect, span: SpanData): Invocation {
  const agentIdentity = identityOf(dialect, span);
  return agentIdentity === undefined ? { dialect } : { dialect, agentIdentity };
}

/** gen_ai.agent.id, else gen_ai.agent.name, else the dialect's own agent name. */
function identityOf(dialect: Dialect, span: SpanData): string | undefined {
  const attributes = span.attributes;
  return (
    nonEmptyString(attributes['gen_ai.agent.id']) ??
    nonEmptyString(attributes['gen_ai.agent.name']) ??
    dialectAgentName(dialect, span)
  );
}

/** The agent name in the dialect's own attributes (spec §2.2). */
export function dialectAgentName(dialect: Dialect, span: SpanData): string | undefined {
  const attributes = span.attributes;
  switch (dialect) {
    case 'openinference':
      return nonEmptyString(attributes['agent.name']) ?? nonEmptyString(span.name);
    case 'traceloop':
      return nonEmptyString(attributes['traceloop.entity.name']);
    case 'vercel':
      return nonEmptyString(attributes['ai.telemetry.functionId']);
    default:
      return undefined;
  }
}

/**
 * The agent id of an interaction whose invocation span is `root`: its own identity, else the
 * resource's `service.name`, else `unknown_agent`.
 */
export function agentIdOf(root: SpanData): string {
  return (
    classifyInvocation(root)?.agentIdentity ?? nonEmptyString(root.origin.resource['service.name']) ?? UNKNOWN_AGENT
  );
}

/**
 * The agent roles (the seed's `@AgentRole`): span attribute `evalon.agent.roles` (a string array;
 * a single string is one role), else the resource attribute of the same name, else none.
 */
export function rolesOf(span: SpanData): string[] {
  return rolesIn(span.attributes) ?? rolesIn(span.origin.resource) ?? [];
}

function rolesIn(attributes: Attributes): string[] | undefined {
  const value = attributes['evalon.agent.roles'];
  if (typeof value === 'string') return value === '' ? undefined : [value];
  if (!Array.isArray(value)) return undefined;
  const roles = value.filter((role): role is string => typeof role === 'string' && role !== '');
  return roles.length > 0 ? roles : undefined;
}

function nonEmptyString(value: AttributeValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
