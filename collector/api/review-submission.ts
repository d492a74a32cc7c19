/**
 * Submitting a reviewer's verdict (`POST /api/v1/reviews/{reviewId}`): the body is read as a
 * verdict (human-verdict.ts; 400 naming the field), delivered to the review's evaluation as its
 * `review` signal — one delivery per review wins, in the ledger — and the evaluation woken here.
 * The answer waits for the evaluation's record: 200 with it for the delivery that won; 409 with it
 * for any other (a second submission, one of two at once, one after the review expired). A
 * verdict submitted while someone else holds a live claim is 409 naming who and until when.
 *
 * Should the record take longer than `recordWaitMs` (a backlog of evaluations), the winner is
 * answered 202: the verdict is in the ledger and will be recorded; `GET` the review to see it.
 */
import { readHumanVerdict } from '../evaluators/human-verdict.ts';
import { REVIEW_SIGNAL } from '../evaluators/human-review.ts';
import type { EvaluationWaits } from '../ledger/evaluation-waits.ts';
import type { ReviewRecord, ReviewStore } from '../ledger/review-store.ts';
import { jsonBody } from './request-body.ts';
import type { JsonReply } from './router.ts';

/** How long the answer waits for the evaluation's record (within the CLI's 10 s wait for an answer). */
export const DEFAULT_RECORD_WAIT_MS = 8_000;
const RECORD_POLL_MS = 25;

export interface ReviewSubmissionOptions {
  store: Pick<ReviewStore, 'getReview'> & Pick<EvaluationWaits, 'deliverSignal'>;
  now: () => number;
  /** Resumes due evaluations here at once (the collector's evaluation runtime). */
  wake?: () => void;
  recordWaitMs?: number;
}

const reply = (status: number, body: unknown): JsonReply => ({ status, body });

export async function submitReview(
  options: ReviewSubmissionOptions,
  reviewId: string,
  body: string,
): Promise<JsonReply> {
  const { store } = options;
  const review = await store.getReview(reviewId);
  if (!review) return reply(404, { error: `review ${reviewId} not found` });
  const parsed = jsonBody(body);
  if (!parsed.ok) return parsed.reply;
  const reading = readHumanVerdict(parsed.value);
  if (!reading.ok) return reply(400, { error: reading.message, field: reading.field });
  const { verdict } = reading;
  if (review.status === 'done' || review.status === 'expired') return closed(review);
  if (review.status === 'claimed' && review.claim && review.claim.reviewer !== verdict.reviewer) {
    return reply(409, {
      error: `review ${reviewId} is claimed by ${review.claim.reviewer} until ${review.claim.until}`,
      claimedBy: review.claim.reviewer,
      until: review.claim.until,
    });
  }
  const delivery = await store.deliverSignal({
    evaluationId: reviewId,
    signal: REVIEW_SIGNAL,
    payload: verdict,
    at: new Date(options.now()).toISOString(),
  });
  if (delivery === 'delivered') options.wake?.();
  const done = await recorded(options, reviewId);
  if (delivery === 'delivered') {
    if (done?.record) return reply(200, done.record);
    return reply(202, {
      status: 'accepted',
      reviewId,
      message: 'the verdict is in the ledger and will be recorded shortly (GET the review to see its record)',
    });
  }
  if (done) return closed(done);
  // Nothing recorded yet: a verdict delivered by another submission is still on its way.
  return reply(409, { error: `review ${reviewId} was already submitted; its record is not written yet` });
}

function closed(review: ReviewRecord): JsonReply {
  const why =
    review.status === 'expired'
      ? `review ${review.reviewId} expired (not reviewed in time) before this verdict`
      : `review ${review.reviewId} was already submitted`;
  return reply(409, { error: why, record: review.record });
}

/** The review once its record is written, or undefined after the wait. */
async function recorded(options: ReviewSubmissionOptions, reviewId: string): Promise<ReviewRecord | undefined> {
  const until = Date.now() + (options.recordWaitMs ?? DEFAULT_RECORD_WAIT_MS);
  for (;;) {
    const review = await options.store.getReview(reviewId);
    if (review && (review.status === 'done' || review.status === 'expired')) return review;
    if (Date.now() >= until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, RECORD_POLL_MS));
  }
}
