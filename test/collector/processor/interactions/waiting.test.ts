/**
 * Traces acknowledged past `max_pending_traces` wait, stored, for the assembler's room
 * (docs/interactions.md, "When recording falls behind"): a burst is taken instead of refused, each
 * waiting trace is recorded in full once recording frees room, nothing is evicted early, a restart
 * puts what waited back to waiting, and a conversation whose turn waits is not closed. Past both
 * limits together, requests are refused with 429.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createPostgresStore } from '../../../../collector/ledger/postgres/postgres-store.ts';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import type { LedgerStore } from '../../../../collector/ledger/store.ts';
import { silentLogger } from '../../../../collector/logger.ts';
import { spanBatchOf } from '../../../../collector/model/span-batch.ts';
import { BackpressureError } from '../../../../collector/pipeline/consumer.ts';
import { createInteractionsProcessor } from '../../../../collector/processor/interactions/interactions-processor.ts';
import { interactionIdOf } from '../../../../src/model/records.ts';
import { createTestDatabase } from '../../../helpers/postgres.ts';
import { refusalOf } from './helpers/refusal.ts';
import { agentSpan, span, spanId } from './helpers/span-builder.ts';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const traceOf = (n: number) => n.toString(16).padStart(32, 'b');
const agentTrace = (n: number, conversation?: string, start?: number) =>
  agentSpan({
    traceId: traceOf(n),
    id: 1,
    agent: 'shop',
    ...(start === undefined ? {} : { start }),
    ...(conversation ? { attributes: { 'gen_ai.conversation.id': conversation } } : {}),
  });
const chatOf = (n: number) =>
  span({
    traceId: traceOf(n),
    id: 2,
    parent: 1,
    name: 'chat',
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': `model-${n}` },
  });

let now = 1_000_000;

/** A ledger that can be opened again after it is closed (a restart): a SQLite file, or a PostgreSQL database. */
const LEDGERS: Record<string, () => Promise<() => Promise<LedgerStore>>> = {
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalon-waiting-'));
    stops.push(async () => rmSync(dir, { recursive: true, force: true }));
    return async () => createSqliteStore({ path: join(dir, 'ledger.db') });
  },
  postgres: async () => {
    const database = await createTestDatabase();
    stops.push(() => database.drop());
    return () => createPostgresStore({ url: database.url });
  },
};

function processorOn(store: LedgerStore, maxPendingTraces: number, maxWaitingTraces: number) {
  const processor = createInteractionsProcessor({
    store,
    config: {
      settleMs: 1_000,
      decisionWaitMs: 5_000,
      maxPendingTraces,
      maxWaitingTraces,
      conversationIdleMs: 60_000,
      pendingSpansMemoryBytes: 1 << 20,
      tickMs: 3_600_000,
    },
    clock: () => now,
    logger: silentLogger,
  });
  stops.push(() => processor.shutdown());
  return processor;
}

async function started(maxPendingTraces: number, maxWaitingTraces: number, ledger = 'sqlite') {
  const store = await (await LEDGERS[ledger]())();
  stops.push(() => store.close());
  now = 1_000_000;
  const processor = processorOn(store, maxPendingTraces, maxWaitingTraces);
  await processor.start();
  return { processor, store };
}

it.each(Object.keys(LEDGERS))(
  'takes traces past the pending ones; they wait, then are recorded whole (%s)',
  async (ledger) => {
    const { processor, store } = await started(10, 10, ledger);
    for (let n = 1; n <= 10; n++) await processor.consume(spanBatchOf([agentTrace(n), chatOf(n)]));
    // The assembler is full: the next traces are taken and wait, their later spans with them.
    for (let n = 11; n <= 20; n++) await processor.consume(spanBatchOf([agentTrace(n)]));
    await processor.consume(spanBatchOf([chatOf(11), chatOf(20)]));
    expect([processor.assembler.pendingTraces(), processor.waiting.size, processor.waiting.spans]).toEqual([
      10, 10, 12,
    ]);
    // Past both limits: refused, naming both.
    const refused = await refusalOf(processor.consume(spanBatchOf([agentTrace(21)])));
    expect(refused).toBeInstanceOf(BackpressureError);
    expect(refused).toMatchObject({
      status: 429,
      message: expect.stringMatching(/20 traces are pending or waiting.*max_pending_traces 10, max_waiting_traces 10/),
    });
    // The first ten are decided; the ten waiting take their place, and are decided a settle window later.
    now += 2_000;
    await processor.tick();
    expect([processor.stats.interactions, processor.assembler.pendingTraces(), processor.waiting.size]).toEqual([
      10, 10, 0,
    ]);
    expect(processor.assembler.isPending(traceOf(11))).toBe(true);
    now += 2_000;
    await processor.tick();
    expect(processor.stats.interactions).toBe(20);
    expect(processor.stats.evictedTraces).toBe(0);
    // Read back from the ledger (waiting traces are not held in memory): every span is in its record.
    for (const n of [11, 20]) {
      const record = await store.getInteraction(interactionIdOf(traceOf(n), spanId(1)));
      expect(record).toMatchObject({ completion: 'structural', model: `model-${n}` });
    }
    const sixteen = await store.getInteraction(interactionIdOf(traceOf(16), spanId(1)));
    expect(sixteen).toMatchObject({ completion: 'structural' });
    expect(sixteen?.model).toBeUndefined();
  },
);

it('keeps arrival order: a new trace waits behind those waiting, and a trace moves with every span', async () => {
  const { processor } = await started(1, 10);
  await processor.consume(spanBatchOf([agentTrace(1)]));
  await processor.consume(spanBatchOf([agentTrace(2), agentTrace(3)]));
  await processor.consume(spanBatchOf([chatOf(3), chatOf(2)]));
  now += 2_000;
  await processor.tick();
  // Trace 1 decided; trace 2, which arrived before 3, is the one that moved, with both its spans.
  expect(processor.assembler.isPending(traceOf(2))).toBe(true);
  expect([processor.assembler.pendingSpans(), processor.waiting.size, processor.waiting.spans]).toEqual([2, 1, 2]);
});

it.each(Object.keys(LEDGERS))(
  'puts what waited back to waiting after a restart, and records it all (%s)',
  async (ledger) => {
    const open = await LEDGERS[ledger]();
    now = 1_000_000;
    const first = await open();
    const before = processorOn(first, 5, 10);
    await before.start();
    for (let n = 1; n <= 12; n++) await before.consume(spanBatchOf([agentTrace(n), chatOf(n)]));
    expect([before.assembler.pendingTraces(), before.waiting.size]).toEqual([5, 7]);
    await before.shutdown();
    await first.close();

    const store = await open();
    stops.push(() => store.close());
    const after = processorOn(store, 5, 10);
    await after.start();
    // Replayed as they were held: five pending, seven waiting, none evicted.
    expect([after.assembler.pendingTraces(), after.waiting.size, after.waiting.spans]).toEqual([5, 7, 14]);
    for (let tick = 0; tick < 4; tick++) {
      now += 2_000;
      await after.tick();
    }
    expect([after.stats.interactions, after.stats.evictedTraces, after.waiting.size]).toEqual([12, 0, 0]);
    const last = await store.getInteraction(interactionIdOf(traceOf(12), spanId(1)));
    expect(last).toMatchObject({ completion: 'structural', model: 'model-12' });
  },
);

it('does not close a conversation while a turn of it waits', async () => {
  const { processor } = await started(1, 10);
  // The turns' spans end now (in nanoseconds): the conversation is idle a minute after.
  const start = now * 1_000_000;
  await processor.consume(spanBatchOf([agentTrace(1, 'talk', start)]));
  now += 2_000;
  await processor.tick();
  // The conversation has a recorded turn; its next turn waits behind trace 2, which fills the assembler.
  await processor.consume(spanBatchOf([agentTrace(2)]));
  await processor.consume(spanBatchOf([agentTrace(3, 'talk', start)]));
  expect(processor.waiting.size).toBe(1);
  now += 61_000;
  await processor.conversations.check(now);
  expect(processor.conversations.stats).toMatchObject({ closedIdle: 0, waitingForTurns: 1 });
  // Once the turn is recorded, the conversation closes.
  for (let tick = 0; tick < 2; tick++) {
    now += 2_000;
    await processor.tick();
  }
  await processor.conversations.check(now);
  expect(processor.conversations.stats).toMatchObject({ closedIdle: 1, waitingForTurns: 0 });
});

it('lets a large batch wait past max_waiting_traces with a tenth of the pending room free: none evicted', async () => {
  const { processor } = await started(10, 10);
  for (let n = 1; n <= 19; n++) await processor.consume(spanBatchOf([agentTrace(n)]));
  expect([processor.assembler.pendingTraces(), processor.waiting.size]).toEqual([10, 9]);
  // One trace of room, a tenth of max_pending_traces: five new traces are taken, and all five wait.
  await processor.consume(spanBatchOf([20, 21, 22, 23, 24].map((n) => agentTrace(n))));
  expect([processor.assembler.pendingTraces(), processor.waiting.size]).toEqual([10, 14]);
  expect(await refusalOf(processor.consume(spanBatchOf([agentTrace(25)])))).toBeInstanceOf(BackpressureError);
  for (let tick = 0; tick < 3; tick++) {
    now += 2_000;
    await processor.tick();
  }
  expect([processor.stats.interactions, processor.stats.evictedTraces, processor.waiting.size]).toEqual([24, 0, 0]);
});
