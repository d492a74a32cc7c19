/**
 * The review routes of the API: the queue a page at a time, one review with its subject (the
 * interaction with its transcript, or the conversation with its turns as the reviewed revision
 * ended), claiming one for 30 minutes, and submitting a verdict
 * (review-submission.ts). The review id is its evaluation's id.
 */
import type { ConversationStore } from '../ledger/conversation-store.ts';
import type { InteractionStore } from '../ledger/interaction-store.ts';
import type { EvaluationWaits } from '../ledger/evaluation-waits.ts';
import type { ReviewStore } from '../ledger/review-store.ts';
import { MAX_REVIEWER_CHARS } from '../evaluators/human-verdict.ts';
import { jsonBody } from './request-body.ts';
import { submitReview } from './review-submission.ts';
import { parseReviewsQuery } from './reviews-query.ts';
import type { JsonReply, Route } from './router.ts';

/** How long a claim holds a review for its reviewer. */
export const REVIEW_CLAIM_MS = 30 * 60_000;

export interface ReviewRoutesOptions {
  store: ReviewStore &
    Pick<EvaluationWaits, 'deliverSignal'> &
    Pick<InteractionStore, 'getInteraction'> &
    Pick<ConversationStore, 'getConversation'>;
  now: () => number;
  /** Resumes due evaluations at once (after a verdict is delivered). */
  wake?: () => void;
  recordWaitMs?: number;
}

const error = (status: number, message: string, extra: Record<string, unknown> = {}): JsonReply => ({
  status,
  body: { error: message, ...extra },
});

export function reviewRoutes(options: ReviewRoutesOptions): Route[] {
  const { store, now } = options;
  const iso = () => new Date(now()).toISOString();
  return [
    {
      path: /^\/api\/v1\/reviews$/,
      get: async (_params, url) => {
        const query = parseReviewsQuery(url.searchParams);
        const page = await store.listReviews({ ...query, now: iso() });
        return { status: 200, body: page };
      },
    },
    {
      path: /^\/api\/v1\/reviews\/([^/]+)\/claim$/,
      json: true,
      post: async ([reviewId], _url, body) => {
        const parsed = jsonBody(body);
        if (!parsed.ok) return parsed.reply;
        const reviewer = (parsed.value as { reviewer?: unknown } | null)?.reviewer;
        if (typeof reviewer !== 'string' || reviewer.trim() === '' || reviewer.length > MAX_REVIEWER_CHARS) {
          return error(400, `reviewer must be a non-empty string of at most ${MAX_REVIEWER_CHARS} characters`, {
            field: 'reviewer',
          });
        }
        const at = now();
        const result = await store.claimReview({
          reviewId,
          reviewer: reviewer.trim(),
          at: new Date(at).toISOString(),
          until: new Date(at + REVIEW_CLAIM_MS).toISOString(),
        });
        switch (result.kind) {
          case 'unknown':
            return error(404, `review ${reviewId} not found`);
          case 'claimed':
            return { status: 200, body: result.review };
          case 'held': {
            const claim = result.review.claim!;
            return error(409, `review ${reviewId} is claimed by ${claim.reviewer} until ${claim.until}`, {
              claimedBy: claim.reviewer,
              until: claim.until,
            });
          }
          case 'closed':
            return error(409, `review ${reviewId} is ${result.review.status}`, { record: result.review.record });
        }
      },
    },
    {
      path: /^\/api\/v1\/reviews\/([^/]+)$/,
      get: async ([reviewId]) => {
        const review = await store.getReview(reviewId);
        if (!review) return error(404, `review ${reviewId} not found`);
        const subject = review.subject;
        if (subject.kind === 'conversation') {
          // The conversation as the reviewed revision ended: its turns, each with its transcript.
          const conversation = await store.getConversation(subject.conversationId, subject.agentId, {
            revision: subject.revision,
          });
          return { status: 200, body: { review, ...(conversation ? { conversation } : {}) } };
        }
        const interaction = await store.getInteraction(review.interactionId);
        return { status: 200, body: { review, ...(interaction ? { interaction } : {}) } };
      },
      json: true,
      post: ([reviewId], _url, body) =>
        submitReview(
          {
            store,
            now,
            ...(options.wake ? { wake: options.wake } : {}),
            ...(options.recordWaitMs !== undefined ? { recordWaitMs: options.recordWaitMs } : {}),
          },
          reviewId,
          body,
        ),
    },
  ];
}
