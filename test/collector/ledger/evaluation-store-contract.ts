/**
 * The evaluation part of the ledger store contract (the queue, recorded evaluations, the intake
 * mark, and the reads backfill and `evalon explain` use). Called from inside
 * `describeLedgerStoreContract`, so every store runs it as part of the one suite.
 */
import { describe, expect, it } from 'vitest';
import { LedgerQueryError } from '../../../collector/ledger/errors.ts';
import type { QueuedEvaluation } from '../../../collector/ledger/evaluation-queue.ts';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { makeRecord } from '../../helpers/ledger-fixtures.ts';

let counter = 0;

function queued(interactionId: string, overrides: Partial<QueuedEvaluation> = {}): QueuedEvaluation {
  counter += 1;
  return {
    evaluationId: `evaluation-${counter}`,
    interactionId,
    evaluatorId: 'reply-length',
    evaluatorVersion: '1',
    agentId: 'travel-agent',
    roles: ['booking'],
    triggeredAt: '2026-03-01T10:00:00.000Z',
    source: 'interaction',
    attempts: 0,
    ...overrides,
  };
}

function recordOf(evaluation: QueuedEvaluation, overrides: Partial<EvaluationRecord> = {}): EvaluationRecord {
  return {
    evaluationId: evaluation.evaluationId,
    interactionId: evaluation.interactionId,
    evaluatorId: evaluation.evaluatorId,
    evaluatorVersion: evaluation.evaluatorVersion,
    controlId: 'QA-1',
    agentId: evaluation.agentId,
    outcome: {
      type: 'verdict',
      evaluation: {
        passed: true,
        explanation: 'reply of 13 characters, minimum 10',
        score: 0.9,
        attributes: { length: 13 },
      },
    },
    triggeredAt: evaluation.triggeredAt,
    startedAt: '2026-03-01T10:00:00.010Z',
    completedAt: '2026-03-01T10:00:00.020Z',
    attempts: 1,
    ...overrides,
  };
}

export function describeEvaluationStoreContract(current: () => LedgerStore, reopen: () => Promise<LedgerStore>): void {
  describe('evaluation queue', () => {
    it('queues evaluations in order, with increasing seq and no attempts yet, across a reopen', async () => {
      const a = queued('i-1');
      const b = queued('i-1', { evaluatorId: 'contains', flowId: 'i-0' });
      const result = await current().enqueueEvaluations([a, b]);
      expect(result.map((q) => q.evaluationId)).toEqual([a.evaluationId, b.evaluationId]);
      expect(result[1].seq!).toBeGreaterThan(result[0].seq!);
      const store = await reopen();
      expect(await store.loadQueuedEvaluations()).toStrictEqual(result);
      expect(await store.countQueuedEvaluations()).toBe(2);
    });

    it('queues a key (interaction, evaluator, version) once; another version is another key', async () => {
      const first = queued('i-1');
      await current().enqueueEvaluations([first]);
      const again = await current().enqueueEvaluations([queued('i-1'), queued('i-1', { evaluatorVersion: '2' })]);
      expect(again.map((q) => q.evaluatorVersion)).toEqual(['2']);
      expect((await current().loadQueuedEvaluations()).map((q) => q.evaluationId)).toEqual([
        first.evaluationId,
        again[0].evaluationId,
      ]);
    });

    it('pages the queue after a seq, never reusing a seq after an evaluation leaves the queue', async () => {
      const [a, b] = await current().enqueueEvaluations([queued('i-1'), queued('i-2')]);
      expect(
        (await current().loadQueuedEvaluations({ afterSeq: a.seq, limit: 10 })).map((q) => q.evaluationId),
      ).toEqual([b.evaluationId]);
      expect(await current().loadQueuedEvaluations({ limit: 1 })).toHaveLength(1);
      await current().recordEvaluations([recordOf(b)]);
      const [c] = await current().enqueueEvaluations([queued('i-3')]);
      expect(c.seq!).toBeGreaterThan(b.seq!);
    });

    it(
      'saves durable progress, replacing the last, across ' + 'a reopen; the outcome removes it with the evaluation',
      async () => {
        const [a, b] = await current().enqueueEvaluations([queued('i-1'), queued('i-2')]);
        const first = {
          step: 'judge',
          input: { criterion: 0 },
          completedSteps: 1,
          firstStartedAt: '2026-03-01T10:00:01.000Z',
        };
        const second = {
          step: 'combine',
          state: { verdicts: [true, false], note: 'ünïcode' },
          completedSteps: 3,
          firstStartedAt: '2026-03-01T10:00:01.000Z',
        };
        await current().saveEvaluationProgress([{ seq: a.seq!, progress: first }]);
        await current().saveEvaluationProgress([{ seq: a.seq!, progress: second }]);
        const store = await reopen();
        const [loadedA, loadedB] = await store.loadQueuedEvaluations();
        expect(loadedA.progress).toStrictEqual(second);
        expect(loadedB.progress).toBeUndefined();
        await store.recordEvaluations([recordOf(a)]);
        // Progress of an evaluation no longer queued is ignored, not an error.
        await store.saveEvaluationProgress([{ seq: a.seq!, progress: first }]);
        expect((await store.loadQueuedEvaluations()).map((q) => q.evaluationId)).toEqual([b.evaluationId]);
      },
    );

    it('counts attempts and keeps the last start, across a reopen', async () => {
      const [a] = await current().enqueueEvaluations([queued('i-1')]);
      await current().startEvaluations([{ seq: a.seq!, startedAt: '2026-03-01T10:00:01.000Z' }]);
      await current().startEvaluations([{ seq: a.seq!, startedAt: '2026-03-01T10:00:02.000Z' }]);
      const store = await reopen();
      expect(await store.loadQueuedEvaluations()).toMatchObject([
        { evaluationId: a.evaluationId, attempts: 2, startedAt: '2026-03-01T10:00:02.000Z' },
      ]);
    });
  });

  describe('evaluation leases (replicas sharing the queue)', () => {
    const T = (seconds: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, seconds)).toISOString();
    const lease = (owner: string, untilSeconds: number) => ({ owner, until: T(untilSeconds) });

    it('starts an evaluation for one owner only while its lease runs; the start says which seqs it got', async () => {
      const [a, b] = await current().enqueueEvaluations([queued('i-1'), queued('i-2')]);
      expect(
        await current().startEvaluations(
          [
            { seq: a.seq!, startedAt: T(1) },
            { seq: b.seq!, startedAt: T(1) },
          ],
          lease('replica-a', 31),
        ),
      ).toEqual([a.seq, b.seq]);
      // Another owner cannot start them before the lease ends; the owner itself can (a retry).
      expect(await current().startEvaluations([{ seq: a.seq!, startedAt: T(2) }], lease('replica-b', 32))).toEqual([]);
      expect(await current().startEvaluations([{ seq: a.seq!, startedAt: T(2) }])).toEqual([]);
      expect(await current().startEvaluations([{ seq: a.seq!, startedAt: T(3) }], lease('replica-a', 33))).toEqual([
        a.seq,
      ]);
      // After it ends, anyone can: the attempt is counted once per start.
      expect(await current().startEvaluations([{ seq: a.seq!, startedAt: T(40) }], lease('replica-b', 70))).toEqual([
        a.seq,
      ]);
      const store = await reopen();
      expect((await store.loadQueuedEvaluations()).map((q) => [q.evaluationId, q.attempts])).toEqual([
        [a.evaluationId, 3],
        [b.evaluationId, 1],
      ]);
    });

    it('does not start an evaluation that is no longer queued', async () => {
      const [a] = await current().enqueueEvaluations([queued('i-1')]);
      await current().recordEvaluations([recordOf(a)]);
      expect(await current().startEvaluations([{ seq: a.seq!, startedAt: T(1) }], lease('replica-a', 31))).toEqual([]);
      expect(await current().startEvaluations([{ seq: a.seq! + 1000, startedAt: T(1) }])).toEqual([]);
    });

    it('renews only the leases the owner still holds, and a released lease is free at once', async () => {
      const [a, b] = await current().enqueueEvaluations([queued('i-1'), queued('i-2')]);
      await current().startEvaluations(
        [
          { seq: a.seq!, startedAt: T(1) },
          { seq: b.seq!, startedAt: T(1) },
        ],
        lease('replica-a', 31),
      );
      expect(await current().renewEvaluationLeases(lease('replica-a', 61), [a.seq!, b.seq!])).toEqual([a.seq, b.seq]);
      // b's lease was renewed: at 45 s another owner still cannot take it.
      expect(await current().startEvaluations([{ seq: b.seq!, startedAt: T(45) }], lease('replica-b', 75))).toEqual([]);
      await current().releaseEvaluationLeases('replica-a', [b.seq!]);
      expect(await current().startEvaluations([{ seq: b.seq!, startedAt: T(46) }], lease('replica-b', 76))).toEqual([
        b.seq,
      ]);
      // replica-a lost b: renewing says so. Releasing what it does not hold changes nothing.
      expect(await current().renewEvaluationLeases(lease('replica-a', 91), [a.seq!, b.seq!])).toEqual([a.seq]);
      await current().releaseEvaluationLeases('replica-a', [b.seq!]);
      expect(await current().startEvaluations([{ seq: b.seq!, startedAt: T(47) }], lease('replica-c', 77))).toEqual([]);
    });

    it('lists only what an owner could start when asked for claimable evaluations', async () => {
      const [a, b, c] = await current().enqueueEvaluations([queued('i-1'), queued('i-2'), queued('i-3')]);
      await current().startEvaluations([{ seq: a.seq!, startedAt: T(1) }], lease('replica-a', 31));
      await current().startEvaluations([{ seq: b.seq!, startedAt: T(1) }], lease('replica-b', 31));
      const ids = async (owner: string, at: number) =>
        (await current().loadQueuedEvaluations({ claimableBy: { owner, at: T(at) } })).map((q) => q.evaluationId);
      expect(await ids('replica-a', 10)).toEqual([a.evaluationId, c.evaluationId]);
      expect(await ids('replica-c', 10)).toEqual([c.evaluationId]);
      expect(await ids('replica-c', 40)).toEqual([a.evaluationId, b.evaluationId, c.evaluationId]);
      expect(
        (
          await current().loadQueuedEvaluations({
            afterSeq: a.seq,
            limit: 1,
            claimableBy: { owner: 'replica-c', at: T(10) },
          })
        ).map((q) => q.evaluationId),
      ).toEqual([c.evaluationId]);
    });
  });

  describe('recorded evaluations', () => {
    it('records an outcome exactly as given and removes its evaluation from the queue', async () => {
      const [a] = await current().enqueueEvaluations([queued('i-1')]);
      const record = recordOf(a);
      expect(await current().recordEvaluations([record])).toEqual([a.evaluationId]);
      expect(await current().loadQueuedEvaluations()).toEqual([]);
      const store = await reopen();
      expect(await store.getEvaluations('i-1')).toStrictEqual([record]);
      expect(await store.getEvaluations('unknown')).toEqual([]);
    });

    it('keeps at most one outcome per key: a second record is dropped, also from another attempt', async () => {
      const [a] = await current().enqueueEvaluations([queued('i-1')]);
      expect(await current().recordEvaluations([recordOf(a)])).toHaveLength(1);
      const retry = recordOf(a, {
        evaluationId: 'another-id',
        outcome: { type: 'failed', error: 'boom', errorType: 'Error' },
      });
      expect(await current().recordEvaluations([retry, recordOf(a)])).toEqual([]);
      expect((await current().getEvaluations('i-1')).map((r) => r.outcome.type)).toEqual(['verdict']);
    });

    it('does not queue again a key that is already recorded', async () => {
      const [a] = await current().enqueueEvaluations([queued('i-1')]);
      await current().recordEvaluations([recordOf(a)]);
      expect(await current().enqueueEvaluations([queued('i-1')])).toEqual([]);
      expect(await current().loadQueuedEvaluations()).toEqual([]);
    });

    it('returns an interaction’s evaluations oldest first, each outcome type intact', async () => {
      const evaluations = await current().enqueueEvaluations([
        queued('i-1'),
        queued('i-1', { evaluatorId: 'contains' }),
        queued('i-1', { evaluatorId: 'regex' }),
      ]);
      const [a, b, c] = evaluations;
      await current().recordEvaluations([
        recordOf(a, {
          completedAt: '2026-03-01T10:00:03.000Z',
          outcome: { type: 'inconclusive', reason: 'no transcript' },
        }),
        recordOf(b, {
          completedAt: '2026-03-01T10:00:01.000Z',
          outcome: { type: 'failed', error: 'boom', errorType: 'TypeError' },
        }),
        recordOf(c, { completedAt: '2026-03-01T10:00:02.000Z' }),
      ]);
      expect((await current().getEvaluations('i-1')).map((r) => r.evaluatorId)).toEqual([
        'contains',
        'regex',
        'reply-length',
      ]);
    });

    it('rejects a record without an outcome type it knows, and an evaluation without ids', async () => {
      const [a] = await current().enqueueEvaluations([queued('i-1')]);
      await expect(current().recordEvaluations([recordOf(a, { outcome: { type: 'maybe' } as never })])).rejects.toThrow(
        /outcome type "maybe"/,
      );
      await expect(current().enqueueEvaluations([queued('', {})])).rejects.toThrow(/has no interactionId/);
    });
  });

  describe('intake mark', () => {
    it(
      'starts a new ledger with nothing awaiting intake, then returns recorded interactions in order until ' +
        'taken in',
      async () => {
        expect(await current().loadInteractionsAwaitingIntake(10)).toEqual([]);
        const records = [
          makeRecord({ endTime: '2026-03-01T10:00:05Z' }),
          makeRecord({ endTime: '2026-03-01T10:00:01Z' }),
          makeRecord({ endTime: '2026-03-01T10:00:03Z' }),
        ];
        await current().putInteractions(records.slice(0, 2));
        await current().putInteractions(records.slice(2));
        expect((await current().loadInteractionsAwaitingIntake(10)).map((r) => r.interactionId)).toEqual(
          records.map((r) => r.interactionId),
        );
        expect(await current().loadInteractionsAwaitingIntake(1)).toHaveLength(1);
        // Taking in the first two (they triggered nothing) moves the mark past them, across a reopen.
        expect(
          await current().enqueueEvaluations([], { intake: records.slice(0, 2).map((r) => r.interactionId) }),
        ).toEqual([]);
        const store = await reopen();
        expect((await store.loadInteractionsAwaitingIntake(10)).map((r) => r.interactionId)).toEqual([
          records[2].interactionId,
        ]);
        await store.enqueueEvaluations([queued(records[2].interactionId)], { intake: [records[2].interactionId] });
        expect(await store.loadInteractionsAwaitingIntake(10)).toEqual([]);
        expect(await store.countQueuedEvaluations()).toBe(1);
      },
    );
  });

  describe('interaction reads for backfill and explain', () => {
    it('pages interactions oldest first, filtered by agent and since, and counts them', async () => {
      const records = Array.from({ length: 7 }, (_, i) =>
        makeRecord({
          endTime: `2026-03-01T10:00:0${i}Z`,
          agentId: i % 2 === 0 ? 'travel-agent' : 'billing-agent',
          roles: i === 5 ? ['billing', 'internal'] : ['booking'],
        }),
      );
      await current().putInteractions(records);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await current().pageInteractions({ limit: 3, ...(cursor ? { cursor } : {}) });
        seen.push(...page.records.map((r) => r.interactionId));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(records.map((r) => r.interactionId));
      const travel = await current().pageInteractions({ agentId: 'travel-agent', since: '2026-03-01T10:00:02Z' });
      expect(travel.records.map((r) => r.interactionId)).toEqual(
        [records[2], records[4], records[6]].map((r) => r.interactionId),
      );
      expect(travel.nextCursor).toBeUndefined();
      expect(await current().countInteractions({})).toBe(7);
      expect(await current().countInteractions({ agentId: 'billing-agent', since: '2026-03-01T10:00:02Z' })).toBe(2);
      await expect(current().pageInteractions({ since: 'yesterday' })).rejects.toThrow(
        /since must be an ISO-8601 time/,
      );
    });

    it('refuses a bad cursor, limit or since with one message whatever the store, naming the field', async () => {
      const refusal = async (read: Promise<unknown>) => {
        const error = await read.then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(LedgerQueryError);
        return { field: (error as LedgerQueryError).field, message: (error as Error).message };
      };
      expect(await refusal(current().pageInteractions({ cursor: 'page-2' }))).toEqual({
        field: 'cursor',
        message: 'ledger query: cursor "page-2" is not one this store gave',
      });
      expect(await refusal(current().pageInteractions({ cursor: '-1' }))).toMatchObject({ field: 'cursor' });
      expect(await refusal(current().pageInteractions({ limit: 0 }))).toEqual({
        field: 'limit',
        message: 'ledger query: limit must be a positive integer (got 0)',
      });
      expect(await refusal(current().countInteractions({ since: '24h' }))).toEqual({
        field: 'since',
        message: 'ledger query: since must be an ISO-8601 time (got "24h")',
      });
      expect(await refusal(current().listInteractions({ since: '24h' }))).toMatchObject({ field: 'since' });
    });

    it('lists the agents seen, with the roles of their newest interaction', async () => {
      await current().putInteractions([
        makeRecord({ endTime: '2026-03-01T10:00:01Z', agentId: 'billing-agent', roles: ['old-role'] }),
        makeRecord({ endTime: '2026-03-01T10:00:09Z', agentId: 'billing-agent', roles: ['billing'] }),
        makeRecord({ endTime: '2026-03-01T10:00:05Z', agentId: 'travel-agent', roles: [] }),
      ]);
      expect(await current().listAgents()).toEqual([
        { agentId: 'billing-agent', roles: ['billing'], interactions: 2, lastSeen: '2026-03-01T10:00:09.000Z' },
        { agentId: 'travel-agent', roles: [], interactions: 1, lastSeen: '2026-03-01T10:00:05.000Z' },
      ]);
    });
  });
}
