/**
 * The signal-wait and review part of the ledger store contract: parking durable evaluations, the
 * due query, signal delivery (one wins), routed follow-ups recorded with their cause, and the
 * review queue (open, claim, list in pages, status following the record). Called from inside
 * `describeLedgerStoreContract`, so every store runs it.
 */
import { describe, expect, it } from 'vitest';
import { LedgerQueryError } from '../../../collector/ledger/errors.ts';
import type { QueuedEvaluation } from '../../../collector/ledger/evaluation-queue.ts';
import type { OpenReview } from '../../../collector/ledger/review-store.ts';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import type { DurableProgress, EvaluationRecord } from '../../../src/model/records.ts';

let counter = 0;
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function queued(interactionId: string, overrides: Partial<QueuedEvaluation> = {}): QueuedEvaluation {
  counter += 1;
  return {
    evaluationId: `wait-evaluation-${counter}`,
    interactionId,
    evaluatorId: 'human-review',
    evaluatorVersion: '1',
    agentId: 'support-agent',
    roles: [],
    triggeredAt: at(0),
    source: 'interaction',
    attempts: 0,
    ...overrides,
  };
}

function parked(deadlineMs: number, signal = 'review'): DurableProgress {
  return {
    step: 'record-review',
    state: { note: 'waiting' },
    completedSteps: 1,
    firstStartedAt: at(0),
    awaiting: { signal, since: at(0), deadline: at(deadlineMs) },
  };
}

function recordOf(evaluation: QueuedEvaluation, outcome: EvaluationRecord['outcome']): EvaluationRecord {
  return {
    evaluationId: evaluation.evaluationId,
    interactionId: evaluation.interactionId,
    evaluatorId: evaluation.evaluatorId,
    evaluatorVersion: evaluation.evaluatorVersion,
    agentId: evaluation.agentId,
    outcome,
    triggeredAt: evaluation.triggeredAt,
    startedAt: at(1),
    completedAt: at(2),
    attempts: 1,
  };
}

const verdict = (passed: boolean, score?: number): EvaluationRecord['outcome'] => ({
  type: 'verdict',
  evaluation: {
    passed,
    explanation: passed ? 'fine' : 'wrong',
    attributes: {},
    ...(score !== undefined ? { score } : {}),
  },
});

function review(evaluation: QueuedEvaluation, createdMs = 0, overrides: Partial<OpenReview> = {}): OpenReview {
  return {
    reviewId: evaluation.evaluationId,
    entryId: evaluation.evaluatorId,
    agentId: evaluation.agentId,
    interactionId: evaluation.interactionId,
    subject: { kind: 'interaction' },
    reason: { kind: 'sampled' },
    createdAt: at(createdMs),
    ...overrides,
  };
}

export function describeWaitAndReviewContract(current: () => LedgerStore, reopen: () => Promise<LedgerStore>): void {
  async function enqueue(evaluation: QueuedEvaluation): Promise<QueuedEvaluation> {
    const [row] = await current().enqueueEvaluations([evaluation]);
    return row!;
  }

  describe('signal waits', () => {
    it('keeps a parked evaluation out of the queue until its deadline, then returns it as due', async () => {
      const store = current();
      const waiting = await enqueue(queued('i-wait-1'));
      const other = await enqueue(queued('i-wait-2', { evaluatorId: 'reply-length' }));
      await store.startEvaluations([{ seq: waiting.seq!, startedAt: at(0) }]);
      await store.parkEvaluations([{ seq: waiting.seq!, progress: parked(60_000) }]);
      expect((await store.loadQueuedEvaluations()).map((q) => q.evaluationId)).toEqual([other.evaluationId]);
      expect(await store.countQueuedEvaluations()).toBe(1);
      expect(await store.loadDueEvaluations({ now: at(59_999), limit: 10 })).toEqual([]);
      const reopened = await reopen();
      const [due] = await reopened.loadDueEvaluations({ now: at(60_000), limit: 10 });
      expect(due).toMatchObject({ evaluationId: waiting.evaluationId, seq: waiting.seq, attempts: 0 });
      expect(due!.progress).toEqual(parked(60_000));
      expect(due!.signal).toBeUndefined();
    });

    it('delivers one signal: it makes the wait due at once; a second is a duplicate', async () => {
      const store = current();
      const waiting = await enqueue(queued('i-signal-1'));
      await store.parkEvaluations([{ seq: waiting.seq!, progress: parked(3_600_000) }]);
      const payload = { passed: false, explanation: 'made up a refund policy', reviewer: 'ana' };
      const deliveries = await Promise.all([
        store.deliverSignal({ evaluationId: waiting.evaluationId, signal: 'review', payload, at: at(1_000) }),
        store.deliverSignal({ evaluationId: waiting.evaluationId, signal: 'review', payload: {}, at: at(1_000) }),
      ]);
      expect(deliveries.sort()).toEqual(['delivered', 'duplicate']);
      const [due] = await store.loadDueEvaluations({ now: at(1_000), limit: 10 });
      expect(due!.evaluationId).toBe(waiting.evaluationId);
      expect(due!.signal?.signal).toBe('review');
      expect(due!.signal?.receivedAt).toBe(at(1_000));
      expect([payload, {}]).toContainEqual(due!.signal?.payload);
    });

    it('refuses a signal after the deadline (expired) and for an unknown or recorded evaluation', async () => {
      const store = current();
      const waiting = await enqueue(queued('i-late-1'));
      await store.parkEvaluations([{ seq: waiting.seq!, progress: parked(10_000) }]);
      const deliver = (evaluationId: string, ms: number) =>
        store.deliverSignal({ evaluationId, signal: 'review', payload: { late: true }, at: at(ms) });
      expect(await deliver(waiting.evaluationId, 10_000)).toBe('expired');
      expect(await deliver('no-such-evaluation', 0)).toBe('unknown');
      await store.recordEvaluations([recordOf(waiting, { type: 'inconclusive', reason: 'not reviewed in time' })]);
      expect(await deliver(waiting.evaluationId, 5_000)).toBe('unknown');
      expect(await store.loadDueEvaluations({ now: at(20_000), limit: 10 })).toEqual([]);
    });

    it('keeps a signal delivered before the evaluation parks, and wakes it as it parks', async () => {
      const store = current();
      const evaluation = await enqueue(queued('i-early-1'));
      expect(
        await store.deliverSignal({ evaluationId: evaluation.evaluationId, signal: 'review', payload: 1, at: at(500) }),
      ).toBe('delivered');
      expect(await store.loadDueEvaluations({ now: at(100_000), limit: 10 })).toEqual([]);
      await store.parkEvaluations([{ seq: evaluation.seq!, progress: parked(3_600_000) }]);
      const [due] = await store.loadDueEvaluations({ now: at(600), limit: 10 });
      expect(due).toMatchObject({ evaluationId: evaluation.evaluationId, signal: { signal: 'review', payload: 1 } });
    });

    it('ends the wait when the next step saves its progress, the signal consumed', async () => {
      const store = current();
      const evaluation = await enqueue(queued('i-resume-1'));
      await store.parkEvaluations([{ seq: evaluation.seq!, progress: parked(3_600_000) }]);
      await store.deliverSignal({ evaluationId: evaluation.evaluationId, signal: 'review', payload: 2, at: at(5) });
      const { awaiting: _awaiting, ...resumed } = parked(0);
      await store.saveEvaluationProgress([{ seq: evaluation.seq!, progress: { ...resumed, step: 'after' } }]);
      expect(await store.loadDueEvaluations({ now: at(10_000_000), limit: 10 })).toEqual([]);
      const [row] = (await store.loadQueuedEvaluations()).filter((q) => q.evaluationId === evaluation.evaluationId);
      expect(row!.progress?.step).toBe('after');
      // Waiting again, it waits for a new signal: the one it resumed with is used up.
      await store.parkEvaluations([{ seq: evaluation.seq!, progress: parked(3_600_000) }]);
      expect(await store.loadDueEvaluations({ now: at(10_000), limit: 10 })).toEqual([]);
      expect(
        await store.deliverSignal({ evaluationId: evaluation.evaluationId, signal: 'review', payload: 3, at: at(9) }),
      ).toBe('delivered');
    });

    it('returns due evaluations earliest first, with the lease filter of replicas', async () => {
      const store = current();
      const late = await enqueue(queued('i-due-late'));
      const early = await enqueue(queued('i-due-early'));
      await store.parkEvaluations([
        { seq: late.seq!, progress: parked(2_000) },
        { seq: early.seq!, progress: parked(1_000) },
      ]);
      const due = await store.loadDueEvaluations({ now: at(5_000), limit: 10 });
      expect(due.map((q) => q.evaluationId)).toEqual([early.evaluationId, late.evaluationId]);
      await store.startEvaluations([{ seq: early.seq!, startedAt: at(5_000) }], { owner: 'a', until: at(65_000) });
      const forB = await store.loadDueEvaluations({
        now: at(5_000),
        limit: 10,
        claimableBy: { owner: 'b', at: at(5_000) },
      });
      expect(forB.map((q) => q.evaluationId)).toEqual([late.evaluationId]);
    });
  });

  describe('routed follow-ups', () => {
    it('queues a follow-up with the record it follows, once, and not for a duplicate record', async () => {
      const store = current();
      const judge = await enqueue(queued('i-route-1', { evaluatorId: 'criteria-judge' }));
      const record = recordOf(judge, verdict(false, 0.2));
      const followUp = queued('i-route-1', { cause: { kind: 'routed', after: 'criteria-judge', record } });
      const first = await store.recordEvaluationsWithFollowUps([record], [followUp]);
      expect(first.written).toEqual([judge.evaluationId]);
      expect(first.queued.map((q) => q.evaluationId)).toEqual([followUp.evaluationId]);
      expect(first.queued[0]!.seq).toBeGreaterThan(judge.seq!);
      const again = await store.recordEvaluationsWithFollowUps(
        [{ ...record, evaluationId: 'another-id' }],
        [{ ...followUp, evaluationId: 'another-follow-up', cause: { kind: 'routed', after: 'x', record } }],
      );
      expect(again).toEqual({ written: [], queued: [] });
      const [row] = (await (await reopen()).loadQueuedEvaluations()).filter((q) => q.interactionId === 'i-route-1');
      expect(row!.cause).toEqual({ kind: 'routed', after: 'criteria-judge', record });
    });
  });

  describe('reviews', () => {
    it('opens a review once, lists it open, and follows its record to done', async () => {
      const store = current();
      const evaluation = await enqueue(queued('i-review-1'));
      const routedVerdict = recordOf(queued('i-review-1', { evaluatorId: 'criteria-judge' }), verdict(false, 0.3));
      const opened = review(evaluation, 0, {
        reason: { kind: 'routed', after: 'criteria-judge', outcome: 'fail', score: 0.3, evaluationId: 'j-1' },
        routedVerdict,
      });
      const first = await store.openReview(opened);
      const again = await store.openReview({ ...opened, createdAt: at(99) });
      expect(again).toEqual(first);
      expect(first).toMatchObject({ status: 'open', createdAt: at(0), routedVerdict, reason: opened.reason });
      await store.parkEvaluations([{ seq: evaluation.seq!, progress: parked(7 * 86_400_000) }]);
      expect((await store.getReview(evaluation.evaluationId))!.dueAt).toBe(at(7 * 86_400_000));
      const human = recordOf(evaluation, verdict(false));
      await store.recordEvaluations([human]);
      const done = (await (await reopen()).getReview(evaluation.evaluationId))!;
      expect(done).toMatchObject({ status: 'done', completedAt: at(2), record: human });
      expect((await current().listReviews({ status: 'open', now: at(3) })).reviews).toEqual([]);
      expect((await current().listReviews({ status: 'done', now: at(3) })).reviews.map((r) => r.reviewId)).toEqual([
        evaluation.evaluationId,
      ]);
    });

    it('expires a review whose evaluation is recorded inconclusive', async () => {
      const store = current();
      const evaluation = await enqueue(queued('i-expire-1'));
      await store.openReview(review(evaluation));
      await store.recordEvaluations([recordOf(evaluation, { type: 'inconclusive', reason: 'not reviewed in time' })]);
      expect((await store.getReview(evaluation.evaluationId))!.status).toBe('expired');
      expect((await store.listReviews({ status: 'expired', now: at(3) })).reviews).toHaveLength(1);
    });

    it('lets one reviewer claim a review until the claim lapses, and extends their own', async () => {
      const store = current();
      const evaluation = await enqueue(queued('i-claim-1'));
      await store.openReview(review(evaluation));
      const id = evaluation.evaluationId;
      const claims = await Promise.all([
        store.claimReview({ reviewId: id, reviewer: 'ana', at: at(0), until: at(1_800_000) }),
        store.claimReview({ reviewId: id, reviewer: 'bo', at: at(0), until: at(1_800_000) }),
      ]);
      expect(claims.map((c) => c.kind).sort()).toEqual(['claimed', 'held']);
      const winner = claims.find((c) => c.kind === 'claimed')!;
      const holder = winner.kind === 'claimed' ? winner.review.claim!.reviewer : '';
      const loser = holder === 'ana' ? 'bo' : 'ana';
      expect(claims.find((c) => c.kind === 'held')).toMatchObject({
        review: { status: 'claimed', claim: { reviewer: holder, until: at(1_800_000) } },
      });
      const extended = await store.claimReview({
        reviewId: id,
        reviewer: holder,
        at: at(60_000),
        until: at(1_860_000),
      });
      expect(extended).toMatchObject({ kind: 'claimed', review: { claim: { until: at(1_860_000) } } });
      expect((await store.listReviews({ status: 'claimed', now: at(60_000) })).reviews).toHaveLength(1);
      expect((await store.listReviews({ status: 'open', now: at(60_000) })).reviews).toHaveLength(0);
      expect((await store.listReviews({ status: 'open', now: at(1_860_000) })).reviews).toHaveLength(1);
      const lapsed = await store.claimReview({
        reviewId: id,
        reviewer: loser,
        at: at(1_860_000),
        until: at(3_600_000),
      });
      expect(lapsed).toMatchObject({ kind: 'claimed', review: { claim: { reviewer: loser } } });
      expect(await store.claimReview({ reviewId: 'nope', reviewer: 'ana', at: at(0), until: at(1) })).toEqual({
        kind: 'unknown',
      });
      await store.recordEvaluations([recordOf(evaluation, verdict(true))]);
      const closed = await store.claimReview({ reviewId: id, reviewer: 'ana', at: at(0), until: at(1) });
      expect(closed.kind).toBe('closed');
    });

    it('lists in pages: open oldest first, done newest first, by agent', async () => {
      const store = current();
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) {
        const evaluation = await enqueue(queued(`i-page-${n}`, { agentId: n % 2 === 0 ? 'even-agent' : 'odd-agent' }));
        await store.openReview(review(evaluation, 1_000 - n * 100));
        ids.push(evaluation.evaluationId);
      }
      const oldestFirst = [...ids].reverse();
      const first = await store.listReviews({ status: 'open', now: at(0), limit: 2 });
      expect(first.reviews.map((r) => r.reviewId)).toEqual(oldestFirst.slice(0, 2));
      const second = await store.listReviews({ status: 'open', now: at(0), limit: 2, cursor: first.nextCursor! });
      expect(second.reviews.map((r) => r.reviewId)).toEqual(oldestFirst.slice(2, 4));
      const third = await store.listReviews({ status: 'open', now: at(0), limit: 2, cursor: second.nextCursor! });
      expect(third.reviews.map((r) => r.reviewId)).toEqual(oldestFirst.slice(4));
      expect(third.nextCursor).toBeUndefined();
      const even = await store.listReviews({ status: 'open', agentId: 'even-agent', now: at(0) });
      expect(even.reviews.map((r) => r.reviewId)).toEqual([ids[4], ids[2], ids[0]]);
      await expect(store.listReviews({ status: 'open', now: at(0), cursor: 'garbage' })).rejects.toBeInstanceOf(
        LedgerQueryError,
      );
      await expect(store.listReviews({ status: 'bogus' as 'open', now: at(0) })).rejects.toThrow(/status/);
    });

    it('tells whether a subject is under open review', async () => {
      const store = current();
      const evaluation = await enqueue(queued('i-open-1'));
      await store.openReview(review(evaluation));
      const conversation = await enqueue(queued('i-conv-last', { evaluatorId: 'human-review/conversations' }));
      await store.openReview(
        review(conversation, 0, {
          subject: { kind: 'conversation', conversationId: 'c-1', agentId: 'support-agent', revision: 2 },
        }),
      );
      expect(await store.isUnderOpenReview({ kind: 'interaction', interactionId: 'i-open-1' })).toBe(true);
      expect(await store.isUnderOpenReview({ kind: 'interaction', interactionId: 'i-other' })).toBe(false);
      const c1 = { kind: 'conversation' as const, conversationId: 'c-1', agentId: 'support-agent' };
      expect(await store.isUnderOpenReview(c1)).toBe(true);
      expect(await store.isUnderOpenReview({ ...c1, agentId: 'other-agent' })).toBe(false);
      await store.recordEvaluations([recordOf(evaluation, verdict(true))]);
      expect(await store.isUnderOpenReview({ kind: 'interaction', interactionId: 'i-open-1' })).toBe(false);
    });
  });
}
