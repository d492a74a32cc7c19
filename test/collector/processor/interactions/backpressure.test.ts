/**
 * Overload at the interactions processor (backpressure, docs/interactions.md: 429/503 with
 * Retry-After, never an unbounded queue): when recording does not keep up and the pending traces reach 90% of
 * `max_pending_traces`, new batches are refused with a 429 BackpressureError, and accepted again
 * once the pending traces are recorded. Nothing accepted is lost.
 */
import { afterEach, expect, it } from 'vitest';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { silentLogger } from '../../../../collector/logger.ts';
import { spanBatchOf } from '../../../../collector/model/span-batch.ts';
import { BackpressureError } from '../../../../collector/pipeline/consumer.ts';
import { createInteractionsProcessor } from '../../../../collector/processor/interactions/interactions-processor.ts';
import { span } from './helpers/span-builder.ts';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

function agentTrace(n: number) {
  const traceId = n.toString(16).padStart(32, 'a');
  return span({
    traceId,
    id: 1,
    name: 'invoke_agent shop',
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'shop' },
  });
}

it(
  'refuses new batches with 429 and Retry-After at 90% of ' + 'max_pending_traces, and takes them again once recorded',
  async () => {
    const store = createSqliteStore({ path: ':memory:' });
    let now = 1_000_000;
    const processor = createInteractionsProcessor({
      store,
      config: {
        settleMs: 1_000,
        decisionWaitMs: 5_000,
        maxPendingTraces: 10,
        pendingSpansMemoryBytes: 0,
        tickMs: 3_600_000,
      },
      clock: () => now,
      logger: silentLogger,
    });
    stops.push(
      () => store.close(),
      () => processor.shutdown(),
    );
    await processor.start();
    for (let n = 1; n <= 9; n++) await processor.consume(spanBatchOf([agentTrace(n)]));
    expect(processor.assembler.pendingTraces()).toBe(9);
    const refused = await processor.consume(spanBatchOf([agentTrace(10)])).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(BackpressureError);
    expect(refused).toMatchObject({
      status: 429,
      retryAfterSeconds: 1,
      message: expect.stringContaining('9 traces are pending (max_pending_traces 10)'),
    });
    // Recording catches up: the same batch is accepted, and every accepted trace is recorded.
    now += 6_000;
    await processor.tick();
    expect(processor.assembler.pendingTraces()).toBe(0);
    await processor.consume(spanBatchOf([agentTrace(10)]));
    now += 6_000;
    await processor.tick();
    expect(processor.stats.interactions).toBe(10);
    expect(processor.stats.evictedTraces).toBe(0);
  },
);
