/**
 * The conversation part of the ledger store contract: turns recorded with their interactions,
 * end requests, due conversations (explicit ends and idle ones), closes as revisions, revisions
 * taken in, and the unique key of a conversation revision's evaluations. Called from inside
 * `describeLedgerStoreContract`, so every store runs it as part of the one suite.
 */
import { describe, expect, it } from 'vitest';
import type { QueuedEvaluation } from '../../../collector/ledger/evaluation-queue.ts';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import { EVALON_CONVERSATION_ENDED } from '../../../src/model/attributes.ts';
import type { EvaluationRecord, InteractionRecord } from '../../../src/model/records.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** A turn of `conversationId` that started at `start` s and ended 1 s later. */
function turn(
  conversationId: string | undefined,
  start: number,
  overrides: Partial<InteractionRecord> = {},
): InteractionRecord {
  return makeRecord({
    endTime: at(start + 1),
    startTime: at(start),
    ...(conversationId !== undefined ? { conversationId } : { conversationId: undefined }),
    ...overrides,
  });
}

const ending = (conversationId: string, start: number, overrides: Partial<InteractionRecord> = {}) =>
  turn(conversationId, start, { attributes: { [EVALON_CONVERSATION_ENDED]: true }, ...overrides });

let counter = 0;

function conversationEvaluation(
  lastInteractionId: string,
  revision: number,
  overrides: Partial<QueuedEvaluation> = {},
): QueuedEvaluation {
  counter += 1;
  return {
    evaluationId: `conversation-evaluation-${counter}`,
    interactionId: lastInteractionId,
    subject: { kind: 'conversation', conversationId: 'c-1', agentId: 'travel-agent', revision, interactionIds: [] },
    evaluatorId: 'tool-call-required',
    evaluatorVersion: '1',
    agentId: 'travel-agent',
    roles: ['booking'],
    triggeredAt: at(100),
    source: 'conversation',
    attempts: 0,
    ...overrides,
  };
}

function outcomeOf(evaluation: QueuedEvaluation): EvaluationRecord {
  const subject = evaluation.subject!;
  return {
    evaluationId: evaluation.evaluationId,
    interactionId: evaluation.interactionId,
    evaluatorId: evaluation.evaluatorId,
    evaluatorVersion: evaluation.evaluatorVersion,
    agentId: evaluation.agentId,
    outcome: { type: 'verdict', evaluation: { passed: true, explanation: 'called it', attributes: {} } },
    triggeredAt: evaluation.triggeredAt,
    startedAt: at(101),
    completedAt: at(102),
    attempts: 1,
    subject: {
      kind: 'conversation',
      conversationId: subject.conversationId,
      agentId: subject.agentId,
      revision: subject.revision,
    },
  };
}

export function describeConversationStoreContract(
  current: () => LedgerStore,
  reopen: () => Promise<LedgerStore>,
): void {
  describe('conversations', () => {
    it('records the turns of a conversation in order of start time, with its last interaction', async () => {
      const [a, b, c] = [turn('c-1', 20), turn('c-1', 0), turn('c-1', 10, { failed: true })];
      await current().putInteractions([a, b]);
      await current().putInteractions([c]);
      const conversation = await current().getConversation('c-1', 'travel-agent');
      expect(conversation).toMatchObject({
        conversationId: 'c-1',
        agentId: 'travel-agent',
        revision: 1,
        interactionIds: [b.interactionId, c.interactionId, a.interactionId],
        startTime: at(0),
        lastActivityTime: at(21),
        open: true,
        // The last interaction (latest start) did not fail, though an earlier one did.
        failed: false,
        turns: 3,
      });
      expect(conversation!.endTime).toBeUndefined();
      expect(conversation!.interactions).toStrictEqual([b, c, a]);
      const store = await reopen();
      expect((await store.getConversation('c-1', 'travel-agent'))!.interactionIds).toHaveLength(3);
      expect(await store.getConversation('c-1', 'other-agent')).toBeUndefined();
    });

    it('counts a replayed interaction once, and keeps nested and unlabelled interactions out', async () => {
      const first = turn('c-1', 0);
      await current().putInteractions([first, first]);
      await current().putInteractions([first]);
      await current().putInteractions([turn(undefined, 5), turn('c-1', 6, { flowId: first.interactionId })]);
      expect(await current().getConversation('c-1', 'travel-agent')).toMatchObject({
        turns: 1,
        interactionIds: [first.interactionId],
      });
    });

    it('keeps two agents with one conversation id as two conversations', async () => {
      await current().putInteractions([turn('c-1', 0), turn('c-1', 1, { agentId: 'billing-agent' })]);
      expect(await current().conversationAgents('c-1')).toEqual(['billing-agent', 'travel-agent']);
      expect(await current().conversationAgents('unknown')).toEqual([]);
      expect((await current().getConversation('c-1', 'billing-agent'))!.turns).toBe(1);
    });

    it('finds a conversation whose turn ended it due at once, and closes it as revision 1', async () => {
      const first = turn('c-1', 0);
      const last = ending('c-1', 10);
      await current().putInteractions([first, last]);
      const due = await current().findDueConversations({ now: at(12), idleMs: 900_000, limit: 10 });
      expect(due).toEqual([
        {
          conversationId: 'c-1',
          agentId: 'travel-agent',
          revision: 1,
          turns: 2,
          endReason: 'explicit',
          endTime: at(11),
        },
      ]);
      const [closed] = await current().closeConversations(due);
      expect(closed).toMatchObject({
        conversationId: 'c-1',
        agentId: 'travel-agent',
        revision: 1,
        interactionIds: [first.interactionId, last.interactionId],
        lastInteractionId: last.interactionId,
        roles: ['booking'],
        failed: false,
        startTime: at(0),
        endTime: at(11),
        endReason: 'explicit',
      });
      expect(await current().closeConversations(due)).toEqual([]);
      const store = await reopen();
      expect(await store.getConversation('c-1', 'travel-agent')).toMatchObject({
        open: false,
        endTime: at(11),
        endReason: 'explicit',
      });
      expect(await store.findDueConversations({ now: at(10_000), idleMs: 1000, limit: 10 })).toEqual([]);
      expect(await store.loadConversationsAwaitingIntake(10)).toStrictEqual([closed]);
    });

    it('finds an idle conversation due only once the idle window has passed since its last activity', async () => {
      await current().putInteractions([turn('c-1', 0), turn('c-2', 100)]);
      expect(await current().findDueConversations({ now: at(60), idleMs: 60_000, limit: 10 })).toEqual([]);
      const due = await current().findDueConversations({ now: at(61), idleMs: 60_000, limit: 10 });
      expect(due).toEqual([
        { conversationId: 'c-1', agentId: 'travel-agent', revision: 1, turns: 1, endReason: 'idle', endTime: at(61) },
      ]);
      expect(await current().findDueConversations({ now: at(1000), idleMs: 60_000, limit: 1 })).toHaveLength(1);
      const [closed] = await current().closeConversations(due);
      expect(closed).toMatchObject({ revision: 1, endReason: 'idle', endTime: at(61) });
      expect(
        (await current().findDueConversations({ now: at(1000), idleMs: 60_000, limit: 10 })).map(
          (d) => d.conversationId,
        ),
      ).toEqual(['c-2']);
    });

    it('does not close a conversation that changed since it was found due', async () => {
      await current().putInteractions([turn('c-1', 0)]);
      const due = await current().findDueConversations({ now: at(100), idleMs: 10_000, limit: 10 });
      await current().putInteractions([turn('c-1', 95)]);
      expect(await current().closeConversations(due)).toEqual([]);
      expect(await current().getConversation('c-1', 'travel-agent')).toMatchObject({ open: true, turns: 2 });
    });

    it('reopens a conversation that is over as the next revision, which covers every interaction', async () => {
      const [a, b] = [turn('c-1', 0), ending('c-1', 10)];
      await current().putInteractions([a, b]);
      const [first] = await current().closeConversations(
        await current().findDueConversations({ now: at(20), idleMs: 900_000, limit: 10 }),
      );
      const c = turn('c-1', 30);
      await current().putInteractions([c]);
      expect(await current().getConversation('c-1', 'travel-agent')).toMatchObject({
        revision: 2,
        open: true,
        turns: 3,
      });
      const [second] = await current().closeConversations(
        await current().findDueConversations({ now: at(100), idleMs: 60_000, limit: 10 }),
      );
      expect(second).toMatchObject({
        revision: 2,
        interactionIds: [a.interactionId, b.interactionId, c.interactionId],
        lastInteractionId: c.interactionId,
        endReason: 'idle',
        endTime: at(91),
      });
      expect(await current().listConversationRevisions('c-1', 'travel-agent')).toStrictEqual([first, second]);
      const asFirstEnded = await current().getConversation('c-1', 'travel-agent', { revision: 1 });
      expect(asFirstEnded).toMatchObject({ revision: 1, open: false, endReason: 'explicit', turns: 2 });
      expect(asFirstEnded!.interactions.map((i) => i.interactionId)).toEqual([a.interactionId, b.interactionId]);
      expect(await current().getConversation('c-1', 'travel-agent', { revision: 3 })).toBeUndefined();
    });

    it('counts a turn that started before the requested end in that revision, and one after in the next', async () => {
      const [a, b] = [turn('c-1', 0), ending('c-1', 10)];
      await current().putInteractions([a, b]);
      const straggler = turn('c-1', 5);
      const next = turn('c-1', 20);
      await current().putInteractions([straggler, next]);
      const [revisionOne] = await current().loadConversationsAwaitingIntake(10);
      expect(revisionOne).toMatchObject({
        revision: 1,
        interactionIds: [a.interactionId, straggler.interactionId, b.interactionId],
        endReason: 'explicit',
        endTime: at(11),
      });
      expect(await current().getConversation('c-1', 'travel-agent')).toMatchObject({ revision: 2, open: true });
    });

    it('opens the next revision with a turn that starts in the very millisecond the requested end is', async () => {
      const last = ending('c-1', 0);
      const next = makeRecord({ conversationId: 'c-1', startTime: last.endTime, endTime: at(5) });
      await current().putInteractions([last, next]);
      expect(await current().loadConversationsAwaitingIntake(10)).toMatchObject([
        { revision: 1, interactionIds: [last.interactionId] },
      ]);
      expect(await current().getConversation('c-1', 'travel-agent')).toMatchObject({ revision: 2, turns: 2 });
    });

    it('applies turns recorded together in order of start time, whatever the order of the batch', async () => {
      const [first, last, after] = [turn('c-1', 0), ending('c-1', 10), turn('c-1', 20)];
      await current().putInteractions([after, last, first]);
      expect(await current().loadConversationsAwaitingIntake(10)).toMatchObject([
        { revision: 1, interactionIds: [first.interactionId, last.interactionId], endReason: 'explicit' },
      ]);
      expect(await current().getConversation('c-1', 'travel-agent')).toMatchObject({ revision: 2, turns: 3 });
    });

    it('applies writes made before the previous one resolved in call order: turns, replays and paging', async () => {
      const [first, last, after] = [turn('c-1', 0), ending('c-1', 10), turn('c-1', 20)];
      const plain = turn(undefined, 30);
      // Not awaited one by one: each is called while the one before is still being written.
      const stored = await Promise.all([
        current().putInteractions([first, last]),
        current().putInteractions([after, first]),
        current().putInteractions([plain]),
        current().putInteractions([turn('c-1', 40)]),
      ]);
      expect(stored.map((ids) => [...ids].sort())).toEqual([
        [first.interactionId, last.interactionId].sort(),
        [after.interactionId],
        [plain.interactionId],
        [expect.any(String)],
      ]);
      // The first write's turns closed revision 1 before the second's opened revision 2.
      expect(await current().loadConversationsAwaitingIntake(10)).toMatchObject([
        { revision: 1, interactionIds: [first.interactionId, last.interactionId], endReason: 'explicit' },
      ]);
      expect(await current().getConversation('c-1', 'travel-agent')).toMatchObject({ revision: 2, turns: 4 });
      const paged = (await current().pageInteractions({ limit: 10 })).records.map((r) => r.interactionId);
      expect(paged.slice(0, 4)).toEqual([first, last, after, plain].map((r) => r.interactionId));
    });

    it('takes an end request: unknown, open (due from its due time), already over', async () => {
      const request = { conversationId: 'c-1', agentId: 'travel-agent', at: at(50), dueAt: at(52) };
      expect(await current().requestConversationEnd(request)).toBeUndefined();
      await current().putInteractions([turn('c-1', 0)]);
      expect(await current().requestConversationEnd(request)).toMatchObject({ open: true, lastActivityTime: at(50) });
      expect(await current().findDueConversations({ now: at(51), idleMs: 1_000, limit: 10 })).toEqual([]);
      const due = await current().findDueConversations({ now: at(52), idleMs: 1_000, limit: 10 });
      expect(due).toEqual([
        {
          conversationId: 'c-1',
          agentId: 'travel-agent',
          revision: 1,
          turns: 1,
          endReason: 'explicit',
          endTime: at(50),
        },
      ]);
      await current().closeConversations(due);
      expect(await current().requestConversationEnd({ ...request, at: at(60), dueAt: at(60) })).toMatchObject({
        open: false,
        endTime: at(50),
      });
    });

    it('marks revisions taken in with the queue write, and keeps each one awaiting until then', async () => {
      await current().putInteractions([ending('c-1', 0), ending('c-2', 1)]);
      const closed = await current().closeConversations(
        await current().findDueConversations({ now: at(5), idleMs: 60_000, limit: 10 }),
      );
      expect(closed.map((c) => c.conversationId)).toEqual(['c-1', 'c-2']);
      expect(closed[1].seq).toBeGreaterThan(closed[0].seq);
      await current().enqueueEvaluations([], { conversationIntake: [closed[0]] });
      const store = await reopen();
      expect((await store.loadConversationsAwaitingIntake(10)).map((c) => c.conversationId)).toEqual(['c-2']);
    });

    it('queues and records a conversation revision once per evaluator and version, each revision apart', async () => {
      const last = ending('c-1', 0);
      await current().putInteractions([last]);
      const first = conversationEvaluation(last.interactionId, 1);
      // An evaluation of the same interaction by the same evaluator is another subject.
      const { subject: _subject, ...interactionPart } = conversationEvaluation(last.interactionId, 1);
      const ofInteraction: QueuedEvaluation = { ...interactionPart, source: 'interaction' };
      const queued = await current().enqueueEvaluations([
        first,
        conversationEvaluation(last.interactionId, 1),
        ofInteraction,
      ]);
      expect(queued.map((q) => q.evaluationId)).toEqual([first.evaluationId, ofInteraction.evaluationId]);
      expect((await current().loadQueuedEvaluations())[0].subject).toStrictEqual(first.subject);
      expect(await current().recordEvaluations([outcomeOf(first)])).toEqual([first.evaluationId]);
      expect(await current().enqueueEvaluations([conversationEvaluation(last.interactionId, 1)])).toEqual([]);
      expect(await current().recordEvaluations([outcomeOf(conversationEvaluation(last.interactionId, 1))])).toEqual([]);
      const second = conversationEvaluation(last.interactionId, 2);
      await current().enqueueEvaluations([second]);
      await current().recordEvaluations([outcomeOf(second)]);
      expect(await current().countQueuedEvaluations()).toBe(1);
      // Its revision 2 exists once a turn reopened it; every revision's records are the conversation's.
      await current().closeConversations(await current().findDueConversations({ now: at(5), idleMs: 1, limit: 1 }));
      await current().putInteractions([turn('c-1', 10)]);
      const records = await current().getConversationEvaluations('c-1', 'travel-agent');
      expect(records.map((r) => [r.evaluationId, r.subject])).toEqual([
        [first.evaluationId, { kind: 'conversation', conversationId: 'c-1', agentId: 'travel-agent', revision: 1 }],
        [second.evaluationId, { kind: 'conversation', conversationId: 'c-1', agentId: 'travel-agent', revision: 2 }],
      ]);
      // The interaction's own evaluations are not the conversation's.
      expect(await current().getEvaluations(last.interactionId)).toEqual([]);
      expect(await current().getConversationEvaluations('c-1', 'billing-agent')).toEqual([]);
    });

    it('lists conversations most recently active first, by agent, open or over, since a time', async () => {
      await current().putInteractions([
        turn('c-1', 0),
        turn('c-2', 10, { agentId: 'billing-agent' }),
        ending('c-3', 20),
      ]);
      await current().closeConversations(await current().findDueConversations({ now: at(30), idleMs: 1e9, limit: 9 }));
      const ids = (records: { conversationId: string }[]) => records.map((r) => r.conversationId);
      expect(ids(await current().listConversations({}))).toEqual(['c-3', 'c-2', 'c-1']);
      expect(ids(await current().listConversations({ agentId: 'travel-agent' }))).toEqual(['c-3', 'c-1']);
      expect(ids(await current().listConversations({ open: true }))).toEqual(['c-2', 'c-1']);
      expect(ids(await current().listConversations({ open: false }))).toEqual(['c-3']);
      expect(ids(await current().listConversations({ since: at(11) }))).toEqual(['c-3', 'c-2']);
      expect(ids(await current().listConversations({ limit: 1 }))).toEqual(['c-3']);
      expect((await current().listConversations({ agentId: 'billing-agent' }))[0].interactionIds).toHaveLength(1);
    });

    it('pages and counts closed revisions in the order they closed', async () => {
      await current().putInteractions([
        ending('c-1', 0),
        ending('c-2', 10, { agentId: 'billing-agent' }),
        ending('c-3', 20),
      ]);
      await current().closeConversations(await current().findDueConversations({ now: at(30), idleMs: 1e9, limit: 9 }));
      const first = await current().pageConversationRevisions({ limit: 2 });
      expect(first.revisions.map((r) => r.conversationId)).toEqual(['c-1', 'c-2']);
      const rest = await current().pageConversationRevisions({ limit: 2, cursor: first.nextCursor });
      expect(rest.revisions.map((r) => r.conversationId)).toEqual(['c-3']);
      expect(rest.nextCursor).toBeUndefined();
      expect(await current().countConversationRevisions({})).toBe(3);
      expect(await current().countConversationRevisions({ agentId: 'billing-agent' })).toBe(1);
      expect(await current().countConversationRevisions({ since: at(15) })).toBe(1);
      expect(
        (await current().pageConversationRevisions({ agentId: 'travel-agent', since: at(5) })).revisions.map(
          (r) => r.conversationId,
        ),
      ).toEqual(['c-3']);
    });
  });
}
