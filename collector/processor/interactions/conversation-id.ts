/**
 * Which conversation an invocation belongs to, in the attributes each dialect writes it under:
 * `gen_ai.conversation.id` (OTel GenAI), OpenInference `session.id`, Traceloop's association
 * property, the Vercel AI SDK's `sessionId` metadata. The record builder reads it for the record;
 * the classifier for pending invocations, so the conversation tracker knows a turn is on its way.
 */
import {
  AI_TELEMETRY_METADATA_SESSION_ID,
  GEN_AI_CONVERSATION_ID,
  SESSION_ID,
  TRACELOOP_ASSOCIATION_PROPERTIES_SESSION_ID,
} from '../../../src/model/attributes.ts';
import type { Attributes } from '../../model/span.ts';
import { str } from './dialects/attribute-values.ts';

/** Conversation id keys, in order: semconv, OpenInference, Traceloop, Vercel AI SDK metadata. */
export const CONVERSATION_KEYS = [
  GEN_AI_CONVERSATION_ID,
  SESSION_ID,
  TRACELOOP_ASSOCIATION_PROPERTIES_SESSION_ID,
  AI_TELEMETRY_METADATA_SESSION_ID,
] as const;

/** The first conversation id among `CONVERSATION_KEYS`, or undefined. */
export function conversationIdOf(attributes: Attributes): string | undefined {
  for (const key of CONVERSATION_KEYS) {
    const value = str(attributes, key);
    if (value !== undefined) return value;
  }
  return undefined;
}
