/**
 * When a conversation is over, with an injected clock and no sleeps: the interactions processor
 * records turns into the ledger, and its conversation tracker closes a conversation whose turn
 * ended it in the same tick that records that turn, an idle one once `conversation_idle` has
 * passed since its last turn, and never one with a turn still being assembled; each revision that
 * closes goes to the next stage.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationRevision } from '../../../../collector/ledger/conversation-store.ts';
import { createSqliteStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { silentLogger } from '../../../../collector/logger.ts';
import { spanBatchOf } from '../../../../collector/model/span-batch.ts';
import { createInteractionsProcessor } from '../../../../collector/processor/interactions/interactions-processor.ts';
import { agentSpan, span } from './helpers/span-builder.ts';

const SETTLE_MS = 1_000;
const IDLE_MS = 60_000;
const NANOS = 1_000_000;

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function setUp() {
  const store = createSqliteStore({ path: ':memory:' });
  let now = 1_750_000_000_000;
  const closed: ConversationRevision[] = [];
  const told = { times: 0 };
  const processor = createInteractionsProcessor({
    store,
    config: {
      settleMs: SETTLE_MS,
      decisionWaitMs: 30_000,
      maxPendingTraces: 1_000,
      conversationIdleMs: IDLE_MS,
      tickMs: 3_600_000,
      conversationScanMs: 5_000,
    },
    clock: () => now,
    logger: silentLogger,
    next: {
      consumeInteractions: async () => {},
      consumeConversations: async (revisions) => {
        told.times++;
        closed.push(...revisions);
      },
    },
  });
  stops.push(
    () => store.close(),
    () => processor.shutdown(),
  );
  await processor.start();
  let trace = 0;
  return {
    store,
    processor,
    closed,
    told,
    advance: async (ms: number) => {
      now += ms;
      await processor.tick();
    },
    /** One turn of the support agent in its own trace, started now. */
    turn: (conversationId: string, attributes: Record<string, string | boolean> = {}) => {
      trace += 1;
      return agentSpan({
        traceId: trace.toString(16).padStart(32, 'c'),
        id: 1,
        agent: 'support-agent',
        start: now * NANOS,
        end: (now + 10) * NANOS,
        attributes: { 'gen_ai.conversation.id': conversationId, ...attributes },
      });
    },
  };
}

describe('the conversation tracker', () => {
  it('closes a conversation in the tick that records the turn ending it, without the idle window', async () => {
    const { processor, closed, turn, advance, store } = await setUp();
    await processor.consume(spanBatchOf([turn('c-1')]));
    await processor.consume(spanBatchOf([turn('c-1', { 'evalon.conversation.ended': true })]));
    await advance(SETTLE_MS);
    expect(closed).toMatchObject([
      { conversationId: 'c-1', agentId: 'support-agent', revision: 1, endReason: 'explicit' },
    ]);
    expect(closed[0].interactionIds).toHaveLength(2);
    expect(processor.conversations.stats.closedExplicit).toBe(1);
    expect((await store.getConversation('c-1', 'support-agent'))!.open).toBe(false);
  });

  it('closes an idle conversation only once conversation_idle has passed since its last turn', async () => {
    const { processor, closed, turn, advance } = await setUp();
    await processor.consume(spanBatchOf([turn('c-1')]));
    await advance(SETTLE_MS);
    await advance(IDLE_MS - SETTLE_MS - 100);
    expect(closed).toEqual([]);
    await advance(5_000);
    expect(closed).toMatchObject([{ conversationId: 'c-1', revision: 1, endReason: 'idle' }]);
    expect(processor.conversations.stats.closedIdle).toBe(1);
  });

  it('waits for a turn of the conversation still being assembled before closing it', async () => {
    const { processor, closed, turn, advance } = await setUp();
    const early = turn('c-1');
    // The early turn's tool call has not arrived yet: its interaction waits for it.
    const child = span({ traceId: early.traceId, id: 3, parent: 2, start: early.startTimeUnixNano });
    await processor.consume(spanBatchOf([early, child]));
    await advance(10);
    await processor.consume(spanBatchOf([turn('c-1', { 'evalon.conversation.ended': true })]));
    await advance(SETTLE_MS);
    expect(closed).toEqual([]);
    expect(processor.assembler.hasPendingConversation('c-1')).toBe(true);
    expect(processor.conversations.stats.waitingForTurns).toBe(1);
    // The missing span arrives: both turns are recorded, then the conversation closes with both.
    await processor.consume(
      spanBatchOf([span({ traceId: early.traceId, id: 2, parent: 1, start: early.startTimeUnixNano })]),
    );
    await advance(SETTLE_MS);
    await advance(5_000);
    expect(processor.assembler.hasPendingConversation('c-1')).toBe(false);
    expect(closed).toMatchObject([{ conversationId: 'c-1', revision: 1, endReason: 'explicit' }]);
    expect(closed[0].interactionIds).toHaveLength(2);
  });

  it('reopens a conversation that is over with its next turn, and closes the next revision in its turn', async () => {
    const { processor, closed, turn, advance } = await setUp();
    await processor.consume(spanBatchOf([turn('c-1', { 'evalon.conversation.ended': 'true' })]));
    await advance(SETTLE_MS);
    await processor.consume(spanBatchOf([turn('c-1'), turn('c-2')]));
    await advance(SETTLE_MS);
    await advance(IDLE_MS + 5_000);
    expect(closed.map((r) => [r.conversationId, r.revision, r.endReason, r.interactionIds.length])).toEqual([
      ['c-1', 1, 'explicit', 1],
      ['c-1', 2, 'idle', 2],
      ['c-2', 1, 'idle', 1],
    ]);
  });

  it('tells the next stage when recorded turns closed a revision themselves (a turn after the end)', async () => {
    const { processor, closed, told, turn, advance, store } = await setUp();
    const ended = turn('c-1', { 'evalon.conversation.ended': true });
    await advance(50);
    // Recorded in one batch: the later turn closes revision 1 as it opens revision 2.
    await processor.consume(spanBatchOf([ended, turn('c-1')]));
    await advance(SETTLE_MS);
    expect(closed).toEqual([]);
    expect(told.times).toBe(1);
    expect(await store.loadConversationsAwaitingIntake(10)).toMatchObject([
      {
        conversationId: 'c-1',
        revision: 1,
        endReason: 'explicit',
        interactionIds: [`${ended.traceId}-${ended.spanId}`],
      },
    ]);
    expect(await store.getConversation('c-1', 'support-agent')).toMatchObject({ revision: 2, open: true, turns: 2 });
  });
});
