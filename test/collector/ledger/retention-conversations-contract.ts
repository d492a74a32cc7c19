/**
 * The conversation part of the retention contract: a conversation is pruned whole once it is over
 * and not in use (open, a revision awaiting intake, a queued evaluation, an open review keep it),
 * its evaluations kept with its row as a tombstone under keep_evaluations, and a conversation
 * that resumes afterwards goes on as its next revision.
 */
import { describe, expect, it } from 'vitest';
import { createApiServer } from '../../../collector/api/api-server.ts';
import type { LedgerStore, RetainedSubject } from '../../../collector/ledger/store.ts';
import type { RetentionPolicy } from '../../../collector/retention/config.ts';
import { runPrunePass } from '../../../collector/retention/prune-pass.ts';
import { EVALON_CONVERSATION_ENDED } from '../../../src/model/attributes.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { ledgerInconsistencies, type SqlReader } from './helpers/ledger-consistency.ts';
import { DAY, ended, evaluated, NOW, recorded } from './retention-contract.ts';

const AGENT = 'travel-agent';
const policy: RetentionPolicy = { maxAgeMs: 30 * DAY };

/** A turn of `conversationId` that ended `days` before NOW; `last` ends the conversation. */
function turn(conversationId: string, days: number, last = false, overrides: Partial<InteractionRecord> = {}) {
  return ended(days, {
    conversationId,
    ...(last ? { attributes: { [EVALON_CONVERSATION_ENDED]: true } } : {}),
    ...overrides,
  });
}

export function describeRetentionConversationsContract(current: () => LedgerStore, sql: SqlReader): void {
  const pass = (options: { now?: number; keep?: boolean; reviews?: (subject: RetainedSubject) => boolean } = {}) =>
    runPrunePass({
      store: current(),
      policy: options.keep ? { ...policy, keepEvaluationsMs: 90 * DAY } : policy,
      now: options.now ?? NOW,
      ...(options.reviews ? { reviews: { isUnderOpenReview: async (s) => options.reviews!(s) } } : {}),
    });
  const consistent = async () => expect(await ledgerInconsistencies(sql)).toEqual({});

  /** Records a conversation's turns, closes it (its last turn ended it) and takes the revision in. */
  async function over(conversationId: string, days: number[], options: { takeIn?: boolean } = {}) {
    const turns = days.map((d, index) => turn(conversationId, d, index === days.length - 1));
    await recorded(current(), turns);
    const due = await current().findDueConversations({ now: new Date(NOW).toISOString(), idleMs: DAY, limit: 100 });
    const closed = await current().closeConversations(due.filter((d) => d.conversationId === conversationId));
    if (options.takeIn !== false) await current().enqueueEvaluations([], { conversationIntake: closed });
    return turns;
  }

  const gone = async (records: InteractionRecord[]) =>
    (await current().existingInteractionIds(records.map((r) => r.interactionId))).size === 0;

  describe('retention of conversations', () => {
    it('prunes a conversation that is over whole: its turns, revisions and row', async () => {
      const turns = await over('c-old', [50, 45, 40]);
      const young = await over('c-young', [50, 20]);
      await recorded(current(), [ended(0)]);
      const report = await pass();
      expect(report.units).toBe(1);
      expect(report.tally.conversations.count).toBe(1);
      expect(report.tally.interactions.count).toBe(3);
      expect(await gone(turns)).toBe(true);
      expect(await current().getConversation('c-old', AGENT)).toBeUndefined();
      expect(await current().listConversationRevisions('c-old', AGENT)).toEqual([]);
      // A conversation whose last activity is younger is kept whole, its old turns too.
      expect((await current().getConversation('c-young', AGENT))?.interactionIds).toEqual(
        young.map((r) => r.interactionId),
      );
      await consistent();
    });

    it('lists units oldest first page after page, conversations and plain interactions interleaved', async () => {
      const plain = (days: number) => ended(days);
      const expected: string[] = [];
      const conversation = async (id: string, days: number[]) => {
        await over(id, days);
        expected.push(id);
      };
      const interaction = async (days: number) => {
        const record = plain(days);
        await recorded(current(), [record]);
        expected.push(record.interactionId);
      };
      await conversation('c-1', [60, 58]);
      await interaction(57);
      await conversation('c-2', [56, 55]);
      await interaction(54);
      await interaction(53);
      await conversation('c-3', [52, 50]);
      await conversation('c-4', [49, 48]);
      await interaction(47);
      await conversation('c-5', [46, 45]);
      // Pages of two: a page full of conversations bounds how far the interaction stream reads.
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await current().findPrunable({ limit: 2, ...(cursor ? { cursor } : {}) });
        for (const unit of page.units)
          listed.push(unit.kind === 'interaction' ? unit.interactionId : unit.conversationId);
        cursor = page.nextCursor;
      } while (cursor);
      expect(listed).toEqual(expected);
    });

    it('never prunes a conversation in use: open, awaiting intake, a queued evaluation, an open review', async () => {
      const open = [turn('c-open', 45), turn('c-open', 40)];
      await recorded(current(), open);
      const awaiting = await over('c-awaiting', [45, 40], { takeIn: false });
      const queued = await over('c-queued', [45, 40]);
      await current().enqueueEvaluations([
        {
          evaluationId: 'conversation-evaluation',
          interactionId: queued[1].interactionId,
          subject: {
            kind: 'conversation',
            conversationId: 'c-queued',
            agentId: AGENT,
            revision: 1,
            interactionIds: [],
          },
          evaluatorId: 'conversation-judge',
          evaluatorVersion: '1',
          agentId: AGENT,
          roles: [],
          triggeredAt: queued[1].endTime,
          source: 'conversation',
          attempts: 0,
        },
      ]);
      const reviewed = await over('c-reviewed', [45, 40]);
      const free = await over('c-free', [45, 40]);
      await recorded(current(), [ended(0)]);
      const report = await pass({
        reviews: (subject) => subject.kind === 'conversation' && subject.conversationId === 'c-reviewed',
      });
      expect(report).toMatchObject({ units: 1, keptForReview: 1, keptInUse: 2 });
      expect(await gone(free)).toBe(true);
      for (const kept of [open, awaiting, queued, reviewed])
        expect((await current().existingInteractionIds(kept.map((r) => r.interactionId))).size).toBe(2);
      expect(await current().getConversation('c-open', AGENT)).toMatchObject({ open: true, turns: 2 });
      await consistent();
    });

    it('keeps a sub-agent interaction inside a turn until its conversation goes', async () => {
      const turns = await over('c-flow', [45, 40]);
      const nested = ended(60, {
        traceId: turns[0].traceId,
        spanId: 'd'.repeat(16),
        flowId: turns[0].interactionId,
        conversationId: 'c-flow',
      });
      await recorded(current(), [nested]);
      await recorded(current(), [ended(0)]);
      // One pass: the conversation goes first (its last activity is older than the cutoff), then
      // the nested interaction is found again by the next pass.
      await pass();
      await pass();
      expect(await gone([...turns, nested])).toBe(true);
      await consistent();
    });

    it(
      'keeps a pruned conversation evaluations and row under keep_evaluations: 410, ' + 'then a next revision',
      async () => {
        const turns = await over('c-kept', [50, 40]);
        const verdict = await evaluated(current(), turns[1], {
          kind: 'conversation',
          conversationId: 'c-kept',
          agentId: AGENT,
          revision: 1,
        });
        const turnVerdict = await evaluated(current(), turns[0]);
        await recorded(current(), [ended(0)]);
        const report = await pass({ keep: true });
        expect(report.tally).toMatchObject({ conversations: { count: 1 }, evaluations: { count: 0 } });
        expect(await gone(turns)).toBe(true);
        expect(await current().getPrunedConversation('c-kept', AGENT)).toEqual({
          conversationId: 'c-kept',
          agentId: AGENT,
          revision: 1,
          lastActivity: turns[1].endTime,
          prunedAt: new Date(NOW).toISOString(),
        });
        expect(await current().getConversationEvaluations('c-kept', AGENT)).toStrictEqual([verdict]);
        expect(await current().getEvaluations(turns[0].interactionId)).toStrictEqual([turnVerdict]);
        expect((await current().listConversations({})).map((c) => c.conversationId)).not.toContain('c-kept');
        await consistent();

        const server = createApiServer({ host: '127.0.0.1', port: 0, store: current(), ready: () => true });
        await server.start();
        try {
          const base = `http://127.0.0.1:${server.address().port}/api/v1/conversations/c-kept`;
          const answer = await fetch(base);
          expect(answer.status).toBe(410);
          expect(await answer.json()).toMatchObject({ conversationId: 'c-kept', agentId: AGENT, revision: 1 });
          const listed = await fetch(`${base}/evaluations`);
          expect(await listed.json()).toEqual({ evaluations: [verdict] });
        } finally {
          await server.shutdown();
        }

        // It resumes: the next revision, its evaluations' keys apart from the kept ones.
        const next = turn('c-kept', 1);
        await recorded(current(), [next]);
        expect(await current().getPrunedConversation('c-kept', AGENT)).toBeUndefined();
        expect(await current().getConversation('c-kept', AGENT)).toMatchObject({
          revision: 2,
          open: true,
          interactionIds: [next.interactionId],
        });
        await consistent();
      },
    );

    it('prunes a kept conversation row with its evaluations once they are keep_evaluations old', async () => {
      const turns = await over('c-late', [50, 40]);
      await evaluated(current(), turns[1], {
        kind: 'conversation',
        conversationId: 'c-late',
        agentId: AGENT,
        revision: 1,
      });
      await recorded(current(), [ended(0)]);
      await pass({ keep: true });
      const later = await pass({ keep: true, now: NOW + 60 * DAY });
      expect(later.tally.evaluations.count).toBe(1);
      expect(await current().getPrunedConversation('c-late', AGENT)).toBeUndefined();
      expect(await current().getConversationEvaluations('c-late', AGENT)).toEqual([]);
      expect(await current().conversationAgents('c-late')).toEqual([]);
      await consistent();
    });
  });
}
