/**
 * The conversations a pending invocation names: a turn of each is on its way, so the conversation
 * tracker does not close it yet (`Assembler.hasPendingConversation`). Counted per invocation span
 * while its interaction is undecided.
 */
import type { PendingTraces } from './pending-traces.ts';
import { addOne, hasOne, invocationAt, removeOne } from './trace-state.ts';

export interface PendingConversations {
  /** Span `span` of `trace` was added: counted when it is an invocation naming a conversation. */
  count(traces: PendingTraces, trace: number, span: number): void;
  /** Its interaction was decided, or its trace released: its turn is no longer pending here. */
  uncount(traces: PendingTraces, trace: number, span: number): void;
  has(conversationId: string): boolean;
}

export function createPendingConversations(): PendingConversations {
  /** Pending invocation spans per conversation id. */
  const counts = new Map<string, number>();
  return {
    count(traces, trace, span) {
      const conversationId = invocationAt(traces, trace, span)?.conversationId;
      if (conversationId === undefined) return;
      [traces.conversationSpans[trace]] = addOne(traces.conversationSpans[trace], span);
      counts.set(conversationId, (counts.get(conversationId) ?? 0) + 1);
    },
    uncount(traces, trace, span) {
      if (!hasOne(traces.conversationSpans[trace], span)) return;
      traces.conversationSpans[trace] = removeOne(traces.conversationSpans[trace], span);
      const conversationId = invocationAt(traces, trace, span)!.conversationId!;
      const count = (counts.get(conversationId) ?? 1) - 1;
      if (count > 0) counts.set(conversationId, count);
      else counts.delete(conversationId);
    },
    has: (conversationId) => counts.has(conversationId),
  };
}
