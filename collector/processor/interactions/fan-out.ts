/**
 * One `next` made of several: each batch of new interactions goes to every consumer in order (the
 * OpenTelemetry Collector's fan-out consumer), so the exporters count an interaction before the
 * evaluation processor can record a verdict on it.
 */
import type { InteractionsConsumer } from './interactions-processor.ts';

export function createInteractionsFanOut(consumers: readonly InteractionsConsumer[]): InteractionsConsumer {
  return {
    async consumeInteractions(records) {
      for (const consumer of consumers) await consumer.consumeInteractions(records);
    },
    // Revisions of conversations that are over go to the consumers that take them.
    async consumeConversations(revisions) {
      for (const consumer of consumers) await consumer.consumeConversations?.(revisions);
    },
  };
}
