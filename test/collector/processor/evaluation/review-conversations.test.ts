/**
 * Human review of whole conversations, over a real SQLite ledger: a conversation judge's failing
 * verdict on a revision routes a review of that same revision (its subject a conversation, shown by
 * the API turn by turn), the review waits without a run slot, a reviewer's verdict resumes it and is recorded as the
 * conversation's verdict, the subject reads as under open review until then, and agreement pairs
 * the two entries on that revision.
 */
import { describe, expect, it } from 'vitest';
import { createApiServer } from '../../../../collector/api/api-server.ts';
import { humanReviewEvaluator } from '../../../../collector/evaluators/human-review.ts';
import type { ConversationRevision } from '../../../../collector/ledger/conversation-store.ts';
import type { SqliteLedgerStore } from '../../../../collector/ledger/sqlite/sqlite-store.ts';
import { defineEvaluator, effects, Evaluation } from '../../../../src/evaluation/index.ts';
import { EVALON_CONVERSATION_ENDED } from '../../../../src/model/attributes.ts';
import type { InteractionRecord } from '../../../../src/model/records.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { interaction, processorHarnesses } from './helpers/processor-harness.ts';

const start = processorHarnesses();

/** Fails a conversation of more than two turns (the customer had to ask again). */
const patience = defineEvaluator({
  id: 'patience',
  subjects: ['conversation'],
  create: () => ({
    evaluate(context) {
      const turns = context.subject.kind === 'conversation' ? context.subject.interactionIds.length : 1;
      return effects.complete(Evaluation.of(turns <= 2, `${turns} turns`).withScore(turns <= 2 ? 1 : 0));
    },
  }),
});

let clock = Date.parse('2026-03-01T10:00:00.000Z');
function turn(conversationId: string, overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  clock += 1000;
  return interaction('support-agent', {
    conversationId,
    startTime: new Date(clock).toISOString(),
    endTime: new Date(clock + 500).toISOString(),
    ...overrides,
  });
}
const ending = (conversationId: string) => turn(conversationId, { attributes: { [EVALON_CONVERSATION_ENDED]: true } });

async function closeEnded(store: SqliteLedgerStore): Promise<ConversationRevision[]> {
  const due = await store.findDueConversations({
    now: new Date(clock + 1000).toISOString(),
    idleMs: 3_600_000,
    limit: 100,
  });
  return store.closeConversations(due);
}

describe('reviews of conversations', () => {
  it('routes a failed conversation to review, records the reviewer’s verdict on that revision', async () => {
    const harness = await start({
      yaml: `
evaluators:
  patience:
    agents: { support-agent: { trigger: conversation } }
  human-review/conversations:
    after: patience
    agents: { support-agent: { trigger: conversation } }
agreement:
  - between: [patience, human-review/conversations]
`,
      evaluators: [patience, humanReviewEvaluator],
    });
    const long = [turn('c-long'), turn('c-long'), ending('c-long')];
    const short = [turn('c-short'), ending('c-short')];
    await harness.record([...long, ...short]);
    await harness.processor.consumeConversations(await closeEnded(harness.store));
    await harness.processor.idle();
    const review = await pollUntil(async () => {
      const [first] = (await harness.store.listReviews({ now: new Date().toISOString() })).reviews;
      return first?.dueAt ? first : undefined;
    });
    expect((await harness.store.listReviews({ now: new Date().toISOString() })).reviews).toHaveLength(1);
    expect(review).toMatchObject({
      entryId: 'human-review/conversations',
      interactionId: long[2]!.interactionId,
      subject: { kind: 'conversation', conversationId: 'c-long', agentId: 'support-agent', revision: 1 },
      reason: { kind: 'routed', after: 'patience', outcome: 'fail', score: 0 },
    });
    // The API shows the reviewer the conversation as that revision ended, turn by turn.
    const api = createApiServer({ host: '127.0.0.1', port: 0, store: harness.store, ready: () => true });
    await api.start();
    try {
      const { port } = api.address();
      const body = (await (await fetch(`http://127.0.0.1:${port}/api/v1/reviews/${review.reviewId}`)).json()) as {
        conversation: { conversationId: string; interactions: InteractionRecord[] };
      };
      expect(body.conversation.conversationId).toBe('c-long');
      expect(body.conversation.interactions.map((i) => i.interactionId)).toEqual(long.map((i) => i.interactionId));
    } finally {
      await api.shutdown();
    }
    const c = { kind: 'conversation' as const, conversationId: 'c-long', agentId: 'support-agent' };
    expect(await harness.store.isUnderOpenReview(c)).toBe(true);
    expect(harness.processor.stats.running).toBe(0);

    await harness.store.deliverSignal({
      evaluationId: review.reviewId,
      signal: 'review',
      payload: { passed: false, explanation: 'asked three times', reviewer: 'ana', score: 0 },
      at: new Date().toISOString(),
    });
    harness.processor.runtime.wake();
    const recorded = await pollUntil(async () =>
      (await harness.store.getConversationEvaluations('c-long', 'support-agent')).find(
        (record) => record.evaluatorId === 'human-review/conversations',
      ),
    );
    expect(recorded).toMatchObject({
      subject: { kind: 'conversation', conversationId: 'c-long', agentId: 'support-agent', revision: 1 },
      outcome: { type: 'verdict', evaluation: { passed: false, explanation: 'asked three times' } },
      provenance: { evaluatorType: 'human', reviewer: 'ana' },
    });
    expect(await harness.store.isUnderOpenReview(c)).toBe(false);
    const agreement = await pollUntil(async () => {
      await harness.processor.idle();
      const [pair] = harness.processor.agreement.report();
      return pair?.count === 1 ? pair : undefined;
    });
    expect(agreement).toMatchObject({ count: 1, rate: 1, kappa: null, scoreMae: 0, sample: 'routed' });
  });
});
