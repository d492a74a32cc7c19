/**
 * `human-review`: a person's verdict. The evaluation opens a review in the review queue (the
 * subject, why it is there — sampled by its binding, or routed after another entry's outcome, with
 * that outcome's record) and waits, parked in the ledger without a run slot, for the `review`
 * signal the review API delivers with the reviewer's verdict (human-verdict.ts). That verdict is
 * the evaluation's outcome, with the reviewer as `evalon.reviewer`. Not reviewed within
 * `review_timeout` (default 7d), it is recorded inconclusive: "not reviewed in time".
 *
 * Properties (all optional): `review_timeout`; `after`, `when`, `score_below` route the entry
 * from another entry's outcomes (collector/processor/evaluation/routing.ts).
 */
import * as z from 'zod';
import { DURATION_FORM, durationMs, formatDuration, type Duration } from '../../src/config/duration.ts';
import { strictObject } from '../../src/config/strict-object.ts';
import { DurableEvaluator } from '../../src/evaluation/durable-evaluator.ts';
import type { DurableEffect } from '../../src/evaluation/durable-effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import type { EvaluationContext } from '../../src/evaluation/evaluation-context.ts';
import { EvaluatorFailedError } from '../../src/evaluation/errors.ts';
import { defineEvaluator } from '../../src/evaluation/evaluator.ts';
import { MAX_SIGNAL_WAIT_MS, type SignalArrival } from '../../src/evaluation/signal-wait.ts';
import { EVALON_REVIEWER } from '../../src/model/attributes.ts';
import type { EvaluationRecord } from '../../src/model/records.ts';
import type { ReviewReason } from '../ledger/review-store.ts';
import { outcomeOf, ROUTED_OUTCOMES } from '../processor/evaluation/routing.ts';
import type { HumanReviewDependencies, ReviewOpener } from './human-review-dependencies.ts';
import { readHumanVerdict } from './human-verdict.ts';

export const HUMAN_REVIEW_ID = 'human-review';
/** The signal the review API delivers a reviewer's verdict with. */
export const REVIEW_SIGNAL = 'review';
export const DEFAULT_REVIEW_TIMEOUT: Duration = '7d';

const reviewTimeout = z.union([z.number(), z.string()]).superRefine((value, context) => {
  const ms = durationMs(value);
  if (ms === undefined || ms < 1 || ms > MAX_SIGNAL_WAIT_MS)
    context.addIssue({ code: 'custom', message: `must be ${DURATION_FORM}, from 1ms to 366d` });
});

export const humanReviewProperties = strictObject({
  review_timeout: reviewTimeout.optional(),
  after: z.string().min(1, 'must be the id of another evaluator entry').optional(),
  when: z
    .array(z.enum(ROUTED_OUTCOMES, { error: `must be one of ${ROUTED_OUTCOMES.join(', ')}` }))
    .min(1, 'must list at least one outcome')
    .optional(),
  score_below: z.number().gt(0, 'must be more than 0').lte(1, 'must be at most 1').optional(),
}).superRefine((properties, context) => {
  for (const key of ['when', 'score_below'] as const) {
    if (properties[key] !== undefined && properties.after === undefined)
      context.addIssue({ code: 'custom', path: [key], message: 'routes an entry: set after as well' });
  }
});

interface ReviewState {
  /** The timeout as written, for the inconclusive outcome's reason. */
  timeout: string;
}

class HumanReview extends DurableEvaluator<ReviewState> {
  readonly #reviews: ReviewOpener | undefined;
  readonly #now: () => number;

  constructor(dependencies: HumanReviewDependencies) {
    super();
    this.#reviews = dependencies.reviews;
    this.#now = dependencies.now ?? Date.now;
  }

  override steps() {
    return { 'record-review': this.recordReview };
  }

  async onEvaluation(context: EvaluationContext): Promise<DurableEffect> {
    const config = context.config();
    const timeout = config.has('review_timeout') ? (config.get('review_timeout') as Duration) : DEFAULT_REVIEW_TIMEOUT;
    const trigger = context.trigger ?? { kind: 'binding' as const };
    const routed: EvaluationRecord | undefined = trigger.kind === 'routed' ? trigger.record : undefined;
    const reason: ReviewReason = routed
      ? { kind: 'routed', after: trigger.kind === 'routed' ? trigger.after : '', ...routedOutcome(routed) }
      : { kind: 'sampled' };
    const { subject } = context;
    // Opened again if this step runs again after a crash: the store keeps the first.
    await this.#reviews?.openReview({
      reviewId: context.evaluationId,
      entryId: context.evaluatorId,
      agentId: subject.agentId,
      interactionId: subject.interactionId,
      subject:
        subject.kind === 'conversation'
          ? {
              kind: 'conversation',
              conversationId: subject.conversationId,
              agentId: subject.agentId,
              revision: subject.revision,
            }
          : { kind: 'interaction' },
      reason,
      ...(routed ? { routedVerdict: routed } : {}),
      createdAt: new Date(this.#now()).toISOString(),
    });
    const written = typeof timeout === 'number' ? formatDuration(timeout) : timeout;
    return this.effects()
      .updateState({ timeout: written })
      .awaitSignal(REVIEW_SIGNAL, { timeout, resumeWith: this.recordReview });
  }

  recordReview(arrival: SignalArrival): DurableEffect {
    if (arrival.status === 'timed-out') {
      return this.effects().inconclusive(
        `not reviewed in time (review_timeout ${this.currentState().timeout}, due ${arrival.deadline})`,
      );
    }
    const reading = readHumanVerdict(arrival.payload);
    if (!reading.ok) throw new EvaluatorFailedError(`evaluator human-review: the review's ${reading.message}`);
    const { verdict } = reading;
    let evaluation = Evaluation.of(verdict.passed, verdict.explanation).withAttribute(
      EVALON_REVIEWER,
      verdict.reviewer,
    );
    if (verdict.score !== undefined) evaluation = evaluation.withScore(verdict.score);
    if (verdict.label !== undefined) evaluation = evaluation.withLabel(verdict.label);
    return this.effects().complete(evaluation);
  }
}

function routedOutcome(record: EvaluationRecord): Omit<Extract<ReviewReason, { kind: 'routed' }>, 'kind' | 'after'> {
  const score = record.outcome.type === 'verdict' ? record.outcome.evaluation.score : undefined;
  return { outcome: outcomeOf(record), evaluationId: record.evaluationId, ...(score !== undefined ? { score } : {}) };
}

export const humanReviewEvaluator = defineEvaluator({
  id: HUMAN_REVIEW_ID,
  type: 'human',
  subjects: ['interaction', 'conversation'],
  description:
    "a person's verdict from the review queue (sampled by its binding, or routed after another entry's outcome)",
  properties: humanReviewProperties,
  create: (dependencies) => new HumanReview(dependencies as HumanReviewDependencies),
});
