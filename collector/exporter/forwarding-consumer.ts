/**
 * The receiver's consumer when `forward: true`: spans go to the interactions processor first and
 * are forwarded only once it has accepted (stored) them, so a batch the sender must retry (429/503)
 * is not forwarded twice. Forwarding itself never fails or slows the batch.
 */
import type { SpanConsumer } from '../pipeline/consumer.ts';
import type { SpanForwarder } from './otlp/span-forwarder.ts';

export function createForwardingConsumer(next: SpanConsumer, forwarder: Pick<SpanForwarder, 'forward'>): SpanConsumer {
  return {
    headAttributes: next.headAttributes,
    async consume(batch) {
      await next.consume(batch);
      forwarder.forward(batch.spans());
    },
  };
}
