/**
 * The retention part of the ledger store contract, run through the pruner's own pass
 * (`runPrunePass`) on each store: age and size pruning, what is never pruned, evaluations kept
 * with their tombstone (and the API's 410), dry runs. Every test ends with the consistency check.
 * Conversations: retention-conversations-contract.ts.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApiServer } from '../../../collector/api/api-server.ts';
import { deflateRecord } from '../../../collector/ledger/core/record-codec.ts';
import type { LedgerStore, RetainedSubject } from '../../../collector/ledger/store.ts';
import type { RetentionPolicy } from '../../../collector/retention/config.ts';
import { runPrunePass } from '../../../collector/retention/prune-pass.ts';
import type { EvaluationRecord, InteractionRecord } from '../../../src/model/records.ts';
import { makeRecord, plainSpan } from '../../helpers/ledger-fixtures.ts';
import { ledgerInconsistencies, type SqlReader } from './helpers/ledger-consistency.ts';

export const NOW = Date.parse('2026-04-10T00:00:00.000Z');
export const DAY = 86_400_000;
const MAX_AGE_30D: RetentionPolicy = { maxAgeMs: 30 * DAY };

/** An interaction that is no conversation's turn, ended `days` before NOW. */
export function ended(days: number, overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  const record = makeRecord({ endTime: new Date(NOW - days * DAY).toISOString(), ...overrides });
  if (!('conversationId' in overrides)) delete record.conversationId;
  return record;
}

/** Records interactions and takes them in (their triggers decided), as the processors would. */
export async function recorded(store: LedgerStore, records: InteractionRecord[]): Promise<void> {
  await store.putInteractions(records);
  await store.enqueueEvaluations([], { intake: records.map((r) => r.interactionId) });
}

let evaluationCounter = 0;

/** Queues and records one outcome for an interaction (or a conversation subject). */
export async function evaluated(
  store: LedgerStore,
  record: InteractionRecord,
  subject?: EvaluationRecord['subject'],
): Promise<EvaluationRecord> {
  evaluationCounter += 1;
  const evaluationId = `retention-evaluation-${evaluationCounter}`;
  const base = {
    evaluationId,
    interactionId: record.interactionId,
    evaluatorId: 'reply-length',
    evaluatorVersion: '1',
    agentId: record.agentId,
    triggeredAt: record.endTime,
  };
  const queued = { ...base, roles: [], source: 'interaction' as const, attempts: 0 };
  await store.enqueueEvaluations([
    subject?.kind === 'conversation' ? { ...queued, subject: { ...subject, interactionIds: [] } } : queued,
  ]);
  const outcome: EvaluationRecord = {
    ...base,
    outcome: { type: 'verdict', evaluation: { passed: true, explanation: 'long enough', attributes: {} } },
    startedAt: record.endTime,
    completedAt: record.endTime,
    attempts: 1,
    ...(subject ? { subject } : {}),
  };
  await store.recordEvaluations([outcome]);
  return outcome;
}

export function describeRetentionContract(current: () => LedgerStore, sql: SqlReader): void {
  const pass = (policy: RetentionPolicy, options: { now?: number; reviews?: (s: RetainedSubject) => boolean } = {}) =>
    runPrunePass({
      store: current(),
      policy,
      now: options.now ?? NOW,
      ...(options.reviews ? { reviews: { isUnderOpenReview: async (s) => options.reviews!(s) } } : {}),
    });
  const exists = async (record: InteractionRecord) =>
    (await current().getInteraction(record.interactionId)) !== undefined;
  const consistent = async () => expect(await ledgerInconsistencies(sql)).toEqual({});

  describe('retention', () => {
    it('prunes interactions that ended before max_age, with their late spans, and keeps younger ones', async () => {
      const [old, older, young, newest] = [ended(40), ended(35), ended(10), ended(0)];
      await recorded(current(), [older, old, young, newest]);
      await current().putLateSpans([{ interactionId: old.interactionId, span: plainSpan(old.traceId, 7) }]);
      const report = await pass(MAX_AGE_30D);
      expect(report).toMatchObject({ units: 2, keptInUse: 0, overSize: false });
      expect(report.tally.interactions.count).toBe(2);
      // The bytes the store keeps of each: its JSON, or the JSON compressed (`compressesRecords`).
      const kept = (record: InteractionRecord) =>
        current().compressesRecords ? deflateRecord(JSON.stringify(record)).length : JSON.stringify(record).length;
      expect(report.tally.interactions.bytes).toBeGreaterThan((kept(old) + kept(older)) * 0.9);
      expect(report.tally.late_spans.count).toBe(1);
      expect(await exists(old)).toBe(false);
      expect(await exists(older)).toBe(false);
      expect(await current().loadLateSpans(old.interactionId)).toEqual([]);
      expect(await exists(young)).toBe(true);
      expect((await current().listInteractions({})).map((r) => r.interactionId)).toEqual([
        newest.interactionId,
        young.interactionId,
      ]);
      expect((await pass(MAX_AGE_30D)).units).toBe(0);
      await consistent();
    });

    it('prunes evaluations with their interaction when keep_evaluations is not set, leaving no tombstone', async () => {
      const [old, newest] = [ended(40), ended(0)];
      await recorded(current(), [old, newest]);
      await evaluated(current(), old);
      const report = await pass(MAX_AGE_30D);
      expect(report.tally.evaluations.count).toBe(1);
      expect(await current().getEvaluations(old.interactionId)).toEqual([]);
      expect(await current().getPrunedInteraction(old.interactionId)).toBeUndefined();
      await consistent();
    });

    it(
      'keeps evaluations past their interaction with keep_evaluations: a tombstone, ' + 'the API answering 410',
      async () => {
        const [old, plain, newest] = [ended(40), ended(40), ended(0)];
        await recorded(current(), [old, plain, newest]);
        const outcome = await evaluated(current(), old);
        const policy = { maxAgeMs: 30 * DAY, keepEvaluationsMs: 60 * DAY };
        const report = await pass(policy);
        expect(report.tally.interactions.count).toBe(2);
        expect(report.tally.evaluations.count).toBe(0);
        expect(await exists(old)).toBe(false);
        expect(await current().getEvaluations(old.interactionId)).toStrictEqual([outcome]);
        expect(await current().getPrunedInteraction(old.interactionId)).toEqual({
          interactionId: old.interactionId,
          traceId: old.traceId,
          agentId: old.agentId,
          endTime: old.endTime,
          prunedAt: new Date(NOW).toISOString(),
        });
        // Without evaluations, nothing of it is kept.
        expect(await current().getPrunedInteraction(plain.interactionId)).toBeUndefined();
        await consistent();

        const server = createApiServer({ host: '127.0.0.1', port: 0, store: current(), ready: () => true });
        await server.start();
        try {
          const base = `http://127.0.0.1:${server.address().port}/api/v1/interactions/`;
          const gone = await fetch(base + old.interactionId);
          expect(gone.status).toBe(410);
          expect(await gone.json()).toMatchObject({
            interactionId: old.interactionId,
            agentId: old.agentId,
            prunedAt: new Date(NOW).toISOString(),
            error: expect.stringContaining('pruned'),
          });
          const listed = await fetch(`${base + old.interactionId}/evaluations`);
          expect(listed.status).toBe(200);
          expect(await listed.json()).toEqual({ evaluations: [outcome] });
          expect((await fetch(base + plain.interactionId)).status).toBe(404);
          expect((await fetch(`${base + plain.interactionId}/evaluations`)).status).toBe(404);
        } finally {
          await server.shutdown();
        }

        // Once its interaction ended keep_evaluations ago, the evaluations go with the tombstone.
        const later = await pass(policy, { now: NOW + 25 * DAY });
        expect(later.tally.evaluations.count).toBe(1);
        expect(await current().getEvaluations(old.interactionId)).toEqual([]);
        expect(await current().getPrunedInteraction(old.interactionId)).toBeUndefined();
        await consistent();
      },
    );

    it(
      'never prunes an interaction in use: pending spans, awaiting intake, a queued evaluation, ' + 'an open review',
      async () => {
        const [pending, awaiting, queued, reviewed, free, newest] = [40, 40, 40, 40, 40, 0].map((days) => ended(days));
        await recorded(current(), [pending, queued, reviewed, free, newest]);
        // Recorded last and not taken in (the SQLite intake mark is the highest taken in); another after it.
        const last = ended(0);
        await current().putInteractions([awaiting, last]);
        await current().appendSpans([plainSpan(pending.traceId, 1)]);
        await current().enqueueEvaluations([
          {
            evaluationId: 'queued-evaluation',
            interactionId: queued.interactionId,
            evaluatorId: 'reply-length',
            evaluatorVersion: '1',
            agentId: queued.agentId,
            roles: [],
            triggeredAt: queued.endTime,
            source: 'interaction',
            attempts: 0,
          },
        ]);
        const asked: RetainedSubject[] = [];
        const underReview = (subject: RetainedSubject) => {
          asked.push(subject);
          return subject.kind === 'interaction' && subject.interactionId === reviewed.interactionId;
        };
        const report = await pass(MAX_AGE_30D, { reviews: underReview });
        expect(asked).toContainEqual({ kind: 'interaction', interactionId: reviewed.interactionId });
        expect(report).toMatchObject({ units: 1, keptForReview: 1, keptInUse: 3 });
        for (const record of [pending, awaiting, queued, reviewed]) expect(await exists(record)).toBe(true);
        expect(await exists(free)).toBe(false);

        // Once nothing holds them, they go.
        await current().releaseTraces([pending.traceId]);
        await current().enqueueEvaluations([], { intake: [awaiting.interactionId, last.interactionId] });
        const [queuedEvaluation] = await current().loadQueuedEvaluations();
        await current().recordEvaluations([
          {
            ...queuedEvaluation,
            outcome: { type: 'inconclusive', reason: 'nothing to judge' },
            startedAt: queued.endTime,
            completedAt: queued.endTime,
            attempts: 1,
          } as EvaluationRecord,
        ]);
        expect((await pass(MAX_AGE_30D)).units).toBe(4);
        await consistent();
      },
    );

    it('keeps the subject of an open human review; its closed review goes with its evaluations', async () => {
      const [reviewed, kept, newest] = [ended(40), ended(40), ended(0)];
      await recorded(current(), [reviewed, kept, newest]);
      const verdicts: EvaluationRecord[] = [];
      for (const record of [reviewed, kept]) {
        const [evaluation] = await current().enqueueEvaluations([
          {
            evaluationId: `review-of-${record.interactionId}`,
            interactionId: record.interactionId,
            evaluatorId: 'human-review',
            evaluatorVersion: '1',
            agentId: record.agentId,
            roles: [],
            triggeredAt: record.endTime,
            source: 'interaction',
            attempts: 0,
          },
        ]);
        await current().openReview({
          reviewId: evaluation!.evaluationId,
          entryId: 'human-review',
          agentId: record.agentId,
          interactionId: record.interactionId,
          subject: { kind: 'interaction' },
          reason: { kind: 'sampled' },
          createdAt: record.endTime,
        });
        verdicts.push({
          ...evaluation!,
          outcome: { type: 'verdict', evaluation: { passed: true, explanation: 'right', attributes: {} } },
          startedAt: record.endTime,
          completedAt: record.endTime,
          attempts: 1,
        } as EvaluationRecord);
      }
      // The ledger's own review store answers the pruner, as in the collector.
      const open = await runPrunePass({
        store: current(),
        policy: MAX_AGE_30D,
        now: NOW,
        reviews: current(),
      });
      expect(open).toMatchObject({ units: 0, keptForReview: 2 });
      await current().recordEvaluations(verdicts);
      // Closed: each goes with its verdict and its review.
      const pruned = await runPrunePass({ store: current(), policy: MAX_AGE_30D, now: NOW });
      expect(pruned.tally).toMatchObject({
        interactions: { count: 2 },
        evaluations: { count: 2 },
        reviews: { count: 2 },
      });
      expect(await current().getReview(verdicts[0].evaluationId)).toBeUndefined();
      await consistent();
    });

    it('keeps a closed review beside the tombstone with keep_evaluations, until the evaluations go', async () => {
      const [reviewed, newest] = [ended(40), ended(0)];
      await recorded(current(), [reviewed, newest]);
      const [evaluation] = await current().enqueueEvaluations([
        {
          evaluationId: 'kept-review',
          interactionId: reviewed.interactionId,
          evaluatorId: 'human-review',
          evaluatorVersion: '1',
          agentId: reviewed.agentId,
          roles: [],
          triggeredAt: reviewed.endTime,
          source: 'interaction',
          attempts: 0,
        },
      ]);
      await current().openReview({
        reviewId: 'kept-review',
        entryId: 'human-review',
        agentId: reviewed.agentId,
        interactionId: reviewed.interactionId,
        subject: { kind: 'interaction' },
        reason: { kind: 'sampled' },
        createdAt: reviewed.endTime,
      });
      await current().recordEvaluations([
        {
          ...evaluation!,
          outcome: { type: 'verdict', evaluation: { passed: false, explanation: 'wrong', attributes: {} } },
          startedAt: reviewed.endTime,
          completedAt: reviewed.endTime,
          attempts: 1,
        } as EvaluationRecord,
      ]);
      const policy = { ...MAX_AGE_30D, keepEvaluationsMs: 60 * DAY };
      expect((await pass(policy)).tally.reviews.count).toBe(0);
      expect(await current().getReview('kept-review')).toMatchObject({ status: 'done' });
      await consistent();
      const later = await pass(policy, { now: NOW + 25 * DAY });
      expect(later.tally).toMatchObject({ evaluations: { count: 1 }, reviews: { count: 1 } });
      expect(await current().getReview('kept-review')).toBeUndefined();
      await consistent();
    });

    it('keeps every interaction of a trace while one of them is in use', async () => {
      const parent = ended(40);
      const child = ended(41, { traceId: parent.traceId, spanId: 'c'.repeat(16), flowId: parent.interactionId });
      await recorded(current(), [child, parent, ended(0)]);
      await current().appendSpans([plainSpan(parent.traceId, 9)]);
      expect((await pass(MAX_AGE_30D)).units).toBe(0);
      await current().releaseTraces([parent.traceId]);
      expect((await pass(MAX_AGE_30D)).units).toBe(2);
      await consistent();
    });

    it('prunes the oldest first until the ledger uses less than max_size, whatever their age', async () => {
      // Incompressible text, so both stores hold about what they are given.
      const records = Array.from({ length: 60 }, (_, i) =>
        ended(60 - i, { finalResponseText: randomBytes(30_000).toString('base64') }),
      );
      await recorded(current(), records);
      const before = await current().measureLedgerSize();
      const maxSize = Math.floor(before.usedBytes * 0.6);
      const report = await pass({ maxSizeBytes: maxSize });
      expect(report.overSize).toBe(false);
      expect(report.units).toBeGreaterThan(10);
      expect((await current().measureLedgerSize()).usedBytes).toBeLessThanOrEqual(maxSize);
      const kept = new Set((await current().listInteractions({ limit: 1000 })).map((r) => r.interactionId));
      const flags = records.map((record) => kept.has(record.interactionId));
      // The pruned are exactly the oldest: once one is kept, every younger one is.
      expect(flags.indexOf(true)).toBe(report.units);
      expect(flags.slice(report.units).every(Boolean)).toBe(true);
      await consistent();
    });

    it('lets one pruner at a time hold the pruning lock', async () => {
      const lock = await current().lockPruning();
      expect(lock).toBeDefined();
      expect(await current().lockPruning()).toBeUndefined();
      await lock!.release();
      await lock!.release();
      const again = await current().lockPruning();
      expect(again).toBeDefined();
      await again!.release();
    });

    it('counts in a dry run exactly what the pass then removes, and removes nothing', async () => {
      const records = [ended(45), ended(40), ended(31), ended(5), ended(0)];
      await recorded(current(), records);
      await current().putLateSpans([
        { interactionId: records[0].interactionId, span: plainSpan(records[0].traceId, 3) },
      ]);
      await evaluated(current(), records[1]);
      const dry = await runPrunePass({ store: current(), policy: MAX_AGE_30D, now: NOW, dryRun: true });
      expect(await current().listInteractions({})).toHaveLength(5);
      const real = await pass(MAX_AGE_30D);
      expect(dry.tally).toEqual(real.tally);
      expect(dry.units).toBe(3);
      await consistent();
    });
  });
}
