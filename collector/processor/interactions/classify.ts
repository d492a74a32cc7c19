/**
 * Which spans are agent invocations, and who the agent is (README.md, "Dialects as implemented").
 * A span is an invocation when the dialect it speaks gives it that role; `dialects/dialect.ts`
 * decides both, for this classifier and for the record builder's readers alike.
 *
 * `classifyInvocation` runs on every received span, so its negative path is a handful of property
 * reads and set lookups, with no allocation. Everything else here runs once per interaction.
 */
import type { AttributeValue, Attributes, SpanData, SpanHead } from '../../model/span.ts';
import {
  AGENT_NAME,
  AI_OPERATION_ID,
  AI_TELEMETRY_FUNCTION_ID,
  EVALON_AGENT_ROLES,
  GEN_AI_AGENT_ID,
  GEN_AI_AGENT_NAME,
  GEN_AI_OPERATION_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_SYSTEM,
  LLM_REQUEST_TYPE,
  OPENINFERENCE_SPAN_KIND,
  SERVICE_NAME,
  TRACELOOP_ENTITY_NAME,
  TRACELOOP_SPAN_KIND,
} from '../../../src/model/attributes.ts';
import { CONVERSATION_KEYS, conversationIdOf } from './conversation-id.ts';
import { dialectOf, roleIn, type Dialect } from './dialects/dialect.ts';

export type { Dialect } from './dialects/dialect.ts';

export interface Invocation {
  dialect: Dialect;
  /**
   * The agent identity the span names itself, or undefined when it names none. An invocation
   * nested in another with no identity, or the same one, belongs to the enclosing interaction.
   */
  agentIdentity?: string;
  /** The conversation the invocation names itself part of (the conversation tracker waits for it). */
  conversationId?: string;
}

/**
 * Every attribute `classifyInvocation` reads, and so all a span's head must carry for the
 * interactions to be decided (`SpanBatch.heads`); the rest is decoded once an interaction is. A
 * test runs the classifier over every dialect's spans and fails on a read of any other key.
 */
export const CLASSIFIED_ATTRIBUTES: ReadonlySet<string> = new Set([
  OPENINFERENCE_SPAN_KIND,
  TRACELOOP_SPAN_KIND,
  GEN_AI_OPERATION_NAME,
  AI_OPERATION_ID,
  LLM_REQUEST_TYPE,
  GEN_AI_SYSTEM,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_AGENT_ID,
  GEN_AI_AGENT_NAME,
  AGENT_NAME,
  TRACELOOP_ENTITY_NAME,
  AI_TELEMETRY_FUNCTION_ID,
  ...CONVERSATION_KEYS,
]);

/** The resource fallback for an agent that names itself nowhere. */
export const UNKNOWN_AGENT = 'unknown_agent';

/** The invocation `span` is, or undefined when it is none. */
export function classifyInvocation(span: SpanHead): Invocation | undefined {
  const dialect = dialectOf(span);
  return roleIn(dialect, span) === 'invocation' ? invocation(dialect, span) : undefined;
}

function invocation(dialect: Dialect, span: SpanHead): Invocation {
  const found: Invocation = { dialect };
  const agentIdentity = identityOf(dialect, span);
  if (agentIdentity !== undefined) found.agentIdentity = agentIdentity;
  const conversationId = conversationIdOf(span.attributes);
  if (conversationId !== undefined) found.conversationId = conversationId;
  return found;
}

/** gen_ai.agent.id, else gen_ai.agent.name, else the dialect's own agent name. */
function identityOf(dialect: Dialect, span: SpanHead): string | undefined {
  const attributes = span.attributes;
  return (
    nonEmptyString(attributes[GEN_AI_AGENT_ID]) ??
    nonEmptyString(attributes[GEN_AI_AGENT_NAME]) ??
    dialectAgentName(dialect, span)
  );
}

/** The agent name in the dialect's own attributes. */
export function dialectAgentName(dialect: Dialect, span: SpanHead): string | undefined {
  const attributes = span.attributes;
  switch (dialect) {
    case 'openinference':
      return nonEmptyString(attributes[AGENT_NAME]) ?? nonEmptyString(span.name);
    case 'traceloop':
      return nonEmptyString(attributes[TRACELOOP_ENTITY_NAME]);
    case 'vercel':
      return nonEmptyString(attributes[AI_TELEMETRY_FUNCTION_ID]);
    default:
      return undefined;
  }
}

/**
 * The agent id of an interaction whose invocation span is `root`: its own identity, else the
 * resource's `service.name`, else `unknown_agent`.
 */
export function agentIdOf(root: SpanData): string {
  return classifyInvocation(root)?.agentIdentity ?? nonEmptyString(root.origin.resource[SERVICE_NAME]) ?? UNKNOWN_AGENT;
}

/**
 * The agent roles evaluators can bind to: span attribute `evalon.agent.roles` (a string array;
 * a single string is one role), else the resource attribute of the same name, else none.
 */
export function rolesOf(span: SpanData): string[] {
  return rolesIn(span.attributes) ?? rolesIn(span.origin.resource) ?? [];
}

function rolesIn(attributes: Attributes): string[] | undefined {
  const value = attributes[EVALON_AGENT_ROLES];
  if (typeof value === 'string') return value === '' ? undefined : [value];
  if (!Array.isArray(value)) return undefined;
  const roles = value.filter((role): role is string => typeof role === 'string' && role !== '');
  return roles.length > 0 ? roles : undefined;
}

function nonEmptyString(value: AttributeValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
