/**
 * What token budgets need of every ledger store: dropping queued evaluations that never started,
 * without an outcome (their keys free for a backfill), and reading back the recent outcomes of some
 * evaluator entries (the budgets' windows rebuilt at start). Called from inside
 * `describeLedgerStoreContract`, so every store runs it as part of the one suite.
 */
import { describe, expect, it } from 'vitest';
import type { QueuedEvaluation } from '../../../collector/ledger/evaluation-queue.ts';
import { RECENT_EVALUATIONS_SLACK_MS } from '../../../collector/ledger/recorded-evaluations.ts';
import type { LedgerStore } from '../../../collector/ledger/store.ts';
import type { EvaluationRecord } from '../../../src/model/records.ts';

const T0 = Date.UTC(2026, 2, 1, 10, 0, 0);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
let counter = 0;

function queued(interactionId: string, evaluatorId = 'llm-judge/strict'): QueuedEvaluation {
  counter += 1;
  return {
    evaluationId: `skip-evaluation-${counter}`,
    interactionId,
    evaluatorId,
    evaluatorVersion: '1',
    agentId: 'support-agent',
    roles: [],
    triggeredAt: at(0),
    source: 'interaction',
    attempts: 0,
  };
}

function recorded(evaluation: QueuedEvaluation, completedAt: string, tokens: number): EvaluationRecord {
  return {
    evaluationId: evaluation.evaluationId,
    interactionId: evaluation.interactionId,
    evaluatorId: evaluation.evaluatorId,
    evaluatorVersion: evaluation.evaluatorVersion,
    agentId: evaluation.agentId,
    outcome: {
      type: 'verdict',
      evaluation: {
        passed: true,
        explanation: 'fine',
        score: 1,
        attributes: { 'gen_ai.usage.input_tokens': tokens, 'gen_ai.usage.output_tokens': 1 },
      },
    },
    triggeredAt: evaluation.triggeredAt,
    startedAt: completedAt,
    completedAt,
    attempts: 1,
    shadow: true,
    provenance: {
      evaluatorType: 'llm_judge',
      model: 'judge-model',
      configHash: 'abc',
      binding: 'agents::support-agent',
    },
  };
}

export function describeEvaluationSkipsContract(current: () => LedgerStore, reopen: () => Promise<LedgerStore>): void {
  describe('dropping evaluations a budget did not let start', () => {
    it('removes queued evaluations that never started, without an outcome, and frees their keys', async () => {
      const [a, b] = await current().enqueueEvaluations([queued('i-1'), queued('i-2')]);
      expect(await current().dropEvaluations([a.seq!], { at: at(1) })).toEqual([a.seq]);
      const store = await reopen();
      expect((await store.loadQueuedEvaluations()).map((q) => q.evaluationId)).toEqual([b.evaluationId]);
      expect(await store.getEvaluations('i-1')).toEqual([]);
      // The key is free: a backfill queues it again.
      const again = queued('i-1');
      expect((await store.enqueueEvaluations([again])).map((q) => q.evaluationId)).toEqual([again.evaluationId]);
    });

    it('keeps an evaluation that started (an attempt counted, leased or not) or is no longer queued', async () => {
      const [a, b, c] = await current().enqueueEvaluations([queued('i-1'), queued('i-2'), queued('i-3')]);
      await current().startEvaluations([{ seq: a.seq!, startedAt: at(1) }], { owner: 'replica-a', until: at(31) });
      await current().startEvaluations([{ seq: b.seq!, startedAt: at(1) }]);
      await current().recordEvaluations([recorded(c, at(2), 10)]);
      expect(await current().dropEvaluations([a.seq!, b.seq!, c.seq!], { at: at(3), owner: 'replica-b' })).toEqual([]);
      expect((await current().loadQueuedEvaluations()).map((q) => q.evaluationId)).toEqual([
        a.evaluationId,
        b.evaluationId,
      ]);
      expect(await current().dropEvaluations([], { at: at(3) })).toEqual([]);
    });
  });

  describe('recent evaluations of some entries', () => {
    it('returns the records of the entries asked about completed since a time, newest first, as recorded', async () => {
      const old = queued('i-1');
      const first = queued('i-2');
      const other = queued('i-3', 'llm-judge/lenient');
      const second = queued('i-4');
      const third = queued('i-5', 'contains');
      await current().enqueueEvaluations([old, first, other, second, third]);
      await current().recordEvaluations([recorded(old, at(10), 1)]);
      await current().recordEvaluations([recorded(first, at(100), 2), recorded(other, at(101), 3)]);
      await current().recordEvaluations([recorded(second, at(102), 4), recorded(third, at(103), 5)]);
      const store = await reopen();
      const recent = await store.loadRecentEvaluations({
        evaluatorIds: ['llm-judge/strict', 'contains'],
        since: at(50),
      });
      expect(recent).toStrictEqual([
        recorded(third, at(103), 5),
        recorded(second, at(102), 4),
        recorded(first, at(100), 2),
      ]);
      expect(await store.loadRecentEvaluations({ evaluatorIds: [], since: at(0) })).toEqual([]);
    });

    it('reads back through many pages while records are within reach of the window', async () => {
      const evaluations = Array.from({ length: 2_500 }, (_, i) => queued(`many-${i}`, i % 2 === 0 ? 'a' : 'b'));
      await current().enqueueEvaluations(evaluations);
      await current().recordEvaluations(evaluations.map((evaluation, i) => recorded(evaluation, at(i), 1)));
      const since = at(100);
      const recent = await current().loadRecentEvaluations({ evaluatorIds: ['a'], since });
      expect(recent).toHaveLength(1_200);
      expect(recent.every((record) => record.evaluatorId === 'a' && record.completedAt >= since)).toBe(true);
      // Far outside the window, nothing is read for it.
      const later = new Date(T0 + 2_500_000 + RECENT_EVALUATIONS_SLACK_MS).toISOString();
      expect(await current().loadRecentEvaluations({ evaluatorIds: ['a'], since: later })).toEqual([]);
    });
  });
}
