/**
 * Agreement in the evaluation processor, over a real SQLite ledger: two entries judge the same
 * interactions, the report follows each recorded verdict (the window keeping the latest pairs),
 * a restart rebuilds the same figures from the ledger, and a pair with a routed review entry says
 * its sample is routed.
 */
import { describe, expect, it } from 'vitest';
import { humanReviewEvaluator } from '../../../../collector/evaluators/human-review.ts';
import { defineEvaluator, effects, Evaluation } from '../../../../src/evaluation/index.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { interaction, processorHarnesses } from './helpers/processor-harness.ts';

const start = processorHarnesses();

/** Passes a reply containing `word`, scoring 1 or 0. */
const contains = (id: string, word: string) =>
  defineEvaluator({
    id,
    create: ({ ledger }) => ({
      async evaluate(context) {
        const { finalResponseText } = await ledger.getInteraction(context.subject.interactionId);
        const found = finalResponseText.includes(word);
        return effects.complete(Evaluation.of(found, `${found ? 'has' : 'lacks'} ${word}`).withScore(found ? 1 : 0));
      },
    }),
  });

const YAML = `
evaluators:
  lenient:
    agents: { support-agent: { trigger: interaction } }
  strict:
    agents: { support-agent: { trigger: interaction } }
  human-review:
    after: lenient
    when: [fail]
    agents: { support-agent: { trigger: interaction } }
agreement:
  - between: [lenient, strict]
    window: 3
  - between: [lenient, human-review]
`;

describe('agreement between entries', () => {
  it('follows recorded verdicts, keeps the last window of pairs, and rebuilds them after a restart', async () => {
    const harness = await start({
      yaml: YAML,
      evaluators: [contains('lenient', 'good'), contains('strict', 'very good'), humanReviewEvaluator],
    });
    // lenient / strict: P/P, P/F, F/F, then P/P (the window of 3 drops the first).
    for (const text of ['very good', 'good', 'bad', 'very good indeed']) {
      await harness.record([interaction('support-agent', { finalResponseText: text })]);
      await harness.processor.idle();
    }
    const [pair, routed] = harness.processor.agreement.report();
    // Last three: P/F, F/F, P/P → rate 2/3; a passes 2/3, b 1/3, p_e 4/9 → kappa (2/3 − 4/9)/(5/9) = 0.4.
    expect(pair).toMatchObject({ a: 'lenient', b: 'strict', window: 3, count: 3, sample: 'sampled' });
    expect(pair!.rate).toBeCloseTo(2 / 3, 12);
    expect(pair!.kappa).toBeCloseTo(0.4, 12);
    expect(pair!.scoreMae).toBeCloseTo(1 / 3, 9);
    expect(routed).toMatchObject({ a: 'lenient', b: 'human-review', window: 500, count: 0, sample: 'routed' });

    await harness.restart();
    expect(harness.processor.agreement.report()[0]).toEqual(pair);

    // The review of the failed interaction: the human agrees it fails.
    const [review] = (await harness.store.listReviews({ now: new Date().toISOString() })).reviews;
    await pollUntil(async () => ((await harness.store.getReview(review!.reviewId))?.dueAt ? true : undefined));
    await harness.store.deliverSignal({
      evaluationId: review!.reviewId,
      signal: 'review',
      payload: { passed: false, score: 0, explanation: 'bad indeed', reviewer: 'ana' },
      at: new Date().toISOString(),
    });
    harness.processor.runtime.wake();
    const agreed = await pollUntil(async () => {
      await harness.processor.idle();
      const report = harness.processor.agreement.report()[1]!;
      return report.count === 1 ? report : undefined;
    });
    expect(agreed).toMatchObject({ count: 1, rate: 1, kappa: null, scoreMae: 0, sample: 'routed' });
  });
});
