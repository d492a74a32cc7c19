/**
 * Routing and signal waits in the evaluation processor, over a real SQLite ledger: a `human-review`
 * entry with `after` is queued only for the outcomes it names, exactly once per subject; it opens
 * its review and parks without a run slot; the `review` signal resumes it with the reviewer's
 * verdict; its deadline (on a manual clock) records it inconclusive; parked reviews survive a
 * restart.
 */
import { describe, expect, it } from 'vitest';
import { humanReviewEvaluator } from '../../../../collector/evaluators/human-review.ts';
import type { EvaluationRecord } from '../../../../src/model/records.ts';
import { defineEvaluator, effects, Evaluation } from '../../../../src/evaluation/index.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { createManualClock } from './helpers/manual-clock.ts';
import { interaction, processorHarnesses } from './helpers/processor-harness.ts';

const start = processorHarnesses();

/** Passes a reply that says "good", scores it 0.9; fails any other with 0.2. */
const judge = defineEvaluator({
  id: 'judge',
  create: ({ ledger }) => ({
    async evaluate(context) {
      const record = await ledger.getInteraction(context.subject.interactionId);
      const good = record.finalResponseText.includes('good');
      return effects.complete(
        Evaluation.of(good, good ? 'says good' : 'does not say good').withScore(good ? 0.9 : 0.2),
      );
    },
  }),
});

const ROUTED = `
concurrency: 2
evaluators:
  judge:
    agents: { support-agent: { trigger: interaction } }
  human-review:
    after: judge
    when: [fail]
    review_timeout: 2h
    agents: { support-agent: { trigger: interaction } }
`;

async function recordsOf(store: { getEvaluations(id: string): Promise<EvaluationRecord[]> }, id: string) {
  return store.getEvaluations(id);
}

describe('routing to human review', () => {
  it('queues a review for each failing verdict only, once, with the routed verdict and why', async () => {
    const harness = await start({ yaml: ROUTED, evaluators: [judge, humanReviewEvaluator] });
    const good = interaction('support-agent', { finalResponseText: 'a good answer' });
    const bad = [1, 2].map((n) => interaction('support-agent', { finalResponseText: `answer ${n}` }));
    await harness.record([good, ...bad]);
    await harness.processor.idle();
    const open = await pollUntil(async () => {
      const page = await harness.store.listReviews({ status: 'open', now: new Date().toISOString() });
      return page.reviews.length === 2 && page.reviews.every((r) => r.dueAt) ? page.reviews : undefined;
    });
    expect(open.map((r) => r.interactionId).sort()).toEqual(bad.map((b) => b.interactionId).sort());
    const [review] = open;
    expect(review!.reason).toMatchObject({ kind: 'routed', after: 'judge', outcome: 'fail', score: 0.2 });
    expect(review!.routedVerdict?.evaluatorId).toBe('judge');
    expect(review!.routedVerdict?.outcome).toMatchObject({ type: 'verdict', evaluation: { passed: false } });
    expect(review!.entryId).toBe('human-review');
    expect(await recordsOf(harness.store, good.interactionId)).toHaveLength(1);
    // Parked: nothing queued to run, nothing running, the processor idle.
    expect(await harness.store.countQueuedEvaluations()).toBe(0);
    expect(harness.processor.stats.running).toBe(0);
    expect(harness.processor.stats.parked).toBe(2);
  });

  it('resumes a review with the delivered verdict and records it as the reviewer gave it', async () => {
    const harness = await start({ yaml: ROUTED, evaluators: [judge, humanReviewEvaluator] });
    const bad = interaction('support-agent', { finalResponseText: 'a wrong answer' });
    await harness.record([bad]);
    const review = await pollUntil(async () => {
      const [first] = (await harness.store.listReviews({ now: new Date().toISOString() })).reviews;
      return first?.dueAt ? first : undefined;
    });
    const verdict = {
      passed: false,
      score: 0.1,
      label: 'hallucination',
      explanation: 'invented a policy',
      reviewer: 'ana',
    };
    const delivered = await harness.store.deliverSignal({
      evaluationId: review.reviewId,
      signal: 'review',
      payload: verdict,
      at: new Date().toISOString(),
    });
    expect(delivered).toBe('delivered');
    harness.processor.runtime.wake();
    const recorded = await pollUntil(async () =>
      (await recordsOf(harness.store, bad.interactionId)).find((r) => r.evaluatorId === 'human-review'),
    );
    expect(recorded.evaluationId).toBe(review.reviewId);
    expect(recorded.outcome).toEqual({
      type: 'verdict',
      evaluation: {
        passed: false,
        explanation: 'invented a policy',
        score: 0.1,
        label: 'hallucination',
        attributes: { 'evalon.reviewer': 'ana' },
      },
    });
    expect(await harness.store.getReview(review.reviewId)).toMatchObject({ status: 'done', record: recorded });
  });

  it('records a review inconclusive at its deadline on the clock, keeping it across a restart', async () => {
    const clock = createManualClock();
    const harness = await start({ yaml: ROUTED, evaluators: [judge, humanReviewEvaluator], processor: { clock } });
    const bad = interaction('support-agent', { finalResponseText: 'nothing useful' });
    await harness.record([bad]);
    const review = await pollUntil(async () => {
      const [first] = (await harness.store.listReviews({ now: new Date(clock.now()).toISOString() })).reviews;
      return first?.dueAt ? first : undefined;
    });
    expect(Date.parse(review.dueAt!) - clock.now()).toBeLessThanOrEqual(2 * 3_600_000);
    await harness.restart({ clock });
    expect((await harness.store.getReview(review.reviewId))!.status).toBe('open');
    await clock.advance(2 * 3_600_000 - 60_000);
    expect((await harness.store.getReview(review.reviewId))!.status).toBe('open');
    await clock.advance(61_000);
    const recorded = await pollUntil(async () =>
      (await recordsOf(harness.store, bad.interactionId)).find((r) => r.evaluatorId === 'human-review'),
    );
    expect(recorded.outcome.type).toBe('inconclusive');
    expect(recorded.outcome.type === 'inconclusive' && recorded.outcome.reason).toMatch(
      /^not reviewed in time \(review_timeout 2h, due /,
    );
    expect((await harness.store.getReview(review.reviewId))!.status).toBe('expired');
  });

  it('routes by score_below, to an entry named type/name', async () => {
    const yaml = `
evaluators:
  judge:
    agents: { support-agent: { trigger: interaction } }
  human-review/low-scores:
    after: judge
    score_below: 0.5
    agents: { support-agent: { trigger: interaction } }
`;
    const harness = await start({ yaml, evaluators: [judge, humanReviewEvaluator] });
    const low = interaction('support-agent', { finalResponseText: 'meh' });
    const high = interaction('support-agent', { finalResponseText: 'good' });
    await harness.record([low, high]);
    const reviews = await pollUntil(async () => {
      const page = await harness.store.listReviews({ now: new Date().toISOString() });
      return page.reviews.length > 0 ? page.reviews : undefined;
    });
    await harness.processor.idle();
    expect(reviews.map((r) => r.interactionId)).toEqual([low.interactionId]);
    expect(reviews[0]!.entryId).toBe('human-review/low-scores');
  });
});
