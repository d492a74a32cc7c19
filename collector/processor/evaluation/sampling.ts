/**
 * Deterministic sampling, as OpenTelemetry's consistent probability sampling does it: the lower
 * 56 bits of the trace id are the randomness R (W3C Trace Context level 2 makes them random), and
 * an interaction is sampled at ratio p iff R < p × 2^56. Replicas and re-runs agree, and an
 * interaction sampled at a ratio is sampled at every higher ratio.
 *
 * A trace id that is not 32 hex digits (never the case for OTLP) takes R from a SHA-256 of it.
 *
 * A conversation is sampled once, from its key: R is 56 bits of a SHA-256 of the conversation id
 * and the agent id, so every revision of it (and every replica) decides the same.
 */
import { createHash } from 'node:crypto';

const TWO_TO_56 = 2 ** 56;
const TRACE_ID = /^[0-9a-f]{32}$/i;

/** R: the lower 56 bits of the trace id (its last 14 hex digits). */
export function samplingRandomness(traceId: string): bigint {
  const hex = TRACE_ID.test(traceId)
    ? traceId.slice(-14)
    : createHash('sha256').update(traceId).digest('hex').slice(0, 14);
  return BigInt(`0x${hex}`);
}

/** Whether the interaction of this trace is evaluated at `ratio` (0 to 1). */
export function isSampled(traceId: string, ratio: number): boolean {
  return sampledAt(ratio, () => samplingRandomness(traceId));
}

/** R of a conversation: 56 bits of SHA-256(conversation id, NUL, agent id). */
export function conversationSamplingRandomness(conversationId: string, agentId: string): bigint {
  return BigInt(`0x${createHash('sha256').update(`${conversationId}\u0000${agentId}`).digest('hex').slice(0, 14)}`);
}

/** Whether the conversation (every revision of it) is evaluated at `ratio` (0 to 1). */
export function isConversationSampled(conversationId: string, agentId: string, ratio: number): boolean {
  return sampledAt(ratio, () => conversationSamplingRandomness(conversationId, agentId));
}

function sampledAt(ratio: number, randomness: () => bigint): boolean {
  if (ratio >= 1) return true;
  if (!(ratio > 0)) return false;
  return randomness() < BigInt(Math.round(ratio * TWO_TO_56));
}
