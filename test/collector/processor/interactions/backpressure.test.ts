/**
 * Overload at the interactions processor (backpressure, docs/interactions.md: 429/503 with
 * Retry-After, never an unbounded queue): when recording does not keep up, a batch whose new traces
 * would take the traces held past `max_pending_traces` and `max_waiting_traces` together is refused
 * with a 429 BackpressureError, and accepted again once the held traces are recorded. Nothing
 * accepted is lost, and nothing pending is evicted early. Here no trace may wait
 * (`max_waiting_traces: 0`), so the limit is `max_pending_traces`; waiting.test.ts has traces wait.
 */
import { afterEach, expect, it } from 'vitest';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { silentLogger } from '../../../../collector/logger.ts';
import { refusalOf } from './helpers/refusal.ts';
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
  'fills max_pending_traces, refuses the batch that would go past it with 429 and Retry-After, and takes it again ' +
    'once recorded',
  async () => {
    const { processor } = await started(10);
    for (let n = 1; n <= 10; n++) await processor.consume(spanBatchOf([agentTrace(n)]));
    expect(processor.assembler.pendingTraces()).toBe(10);
    // A span of a trace already pending adds none: it is taken at the limit.
    await processor.consume(spanBatchOf([childOf(10)]));
    const refused = await refusalOf(processor.consume(spanBatchOf([agentTrace(11)])));
    expect(refused).toBeInstanceOf(BackpressureError);
    expect(refused).toMatchObject({
      status: 429,
      retryAfterSeconds: 1,
      message: expect.stringContaining(
        '10 traces are pending or waiting and 0 more are being stored; this request adds 1',
      ),
    });
    // Recording catches up: the same batch is accepted, and every accepted trace is recorded.
    now += 6_000;
    await processor.tick();
    expect(processor.assembler.pendingTraces()).toBe(0);
    await processor.consume(spanBatchOf([agentTrace(11)]));
    now += 6_000;
    await processor.tick();
    expect(processor.stats.interactions).toBe(11);
    expect(processor.stats.evictedTraces).toBe(0);
  },
);

it('refuses a batch whose new traces do not fit, while a smaller one that fits is taken', async () => {
  const { processor } = await started(100);
  // Nothing pending: any batch is taken.
  await processor.consume(spanBatchOf(Array.from({ length: 95 }, (_, i) => agentTrace(i + 1))));
  // Five traces fit, six do not (below a tenth of the limit, a batch needs room for all its traces).
  const six = spanBatchOf([96, 97, 98, 99, 100, 101].map(agentTrace));
  expect(await refusalOf(processor.consume(six))).toBeInstanceOf(BackpressureError);
  await processor.consume(spanBatchOf([96, 97, 98, 99, 100].map(agentTrace)));
  expect(processor.assembler.pendingTraces()).toBe(100);
  expect(processor.stats.evictedTraces).toBe(0);
});

it('counts the traces of batches still being stored, so that concurrent batches cannot overshoot', async () => {
  const { processor, store } = await started(10);
  for (let n = 1; n <= 8; n++) await processor.consume(spanBatchOf([agentTrace(n)]));
  // The store holds the next append until released: its trace is coming, not pending yet.
  let letGo!: () => void;
  const held = new Promise<void>((resolve) => (letGo = resolve));
  const append = store.appendSpans.bind(store);
  store.appendSpans = async (batch) => {
    await held;
    return append(batch);
  };
  const first = processor.consume(spanBatchOf([agentTrace(9), agentTrace(10)]));
  const second = await refusalOf(processor.consume(spanBatchOf([agentTrace(11)])));
  expect(second).toMatchObject({ status: 429, message: expect.stringContaining('2 more are being stored') });
  letGo();
  await first;
  expect(processor.assembler.pendingTraces()).toBe(10);
  expect(processor.stats.evictedTraces).toBe(0);
});

it('takes any batch when nothing is pending, and a large one when a tenth of the limit is free', async () => {
  const { processor } = await started(10);
  // Nothing pending: twelve new traces are taken, and the next tick evicts the two oldest.
  await processor.consume(spanBatchOf(Array.from({ length: 12 }, (_, i) => agentTrace(i + 1))));
  expect(await refusalOf(processor.consume(spanBatchOf([agentTrace(13)])))).toBeInstanceOf(BackpressureError);
  await processor.tick();
  expect(processor.assembler.pendingTraces()).toBe(10);
  expect(processor.stats.evictedTraces).toBe(2);
  now += 6_000;
  await processor.tick();
  for (let n = 13; n <= 21; n++) await processor.consume(spanBatchOf([agentTrace(n)]));
  // Nine pending, one free: a tenth of the limit. A batch of five new traces goes in (four are evicted).
  await processor.consume(spanBatchOf([22, 23, 24, 25, 26].map(agentTrace)));
  await processor.tick();
  expect(processor.assembler.pendingTraces()).toBe(10);
  expect(processor.stats.evictedTraces).toBe(6);
  // Full: refused, however large.
  expect(await refusalOf(processor.consume(spanBatchOf([27, 28].map(agentTrace))))).toBeInstanceOf(BackpressureError);
});

let now = 1_000_000;

async function started(maxPendingTraces: number) {
  const store = createSqliteStore({ path: ':memory:' });
  now = 1_000_000;
  const processor = createInteractionsProcessor({
    store,
    config: {
      settleMs: 1_000,
      decisionWaitMs: 5_000,
      maxPendingTraces,
      maxWaitingTraces: 0,
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
  return { processor, store };
}

function childOf(n: number) {
  return span({
    traceId: n.toString(16).padStart(32, 'a'),
    id: 2,
    parent: 1,
    name: 'chat',
    attributes: { 'gen_ai.operation.name': 'chat' },
  });
}
