/**
 * The review role of the ledger: the human review queue. A `human-review` evaluation opens its
 * review here (`openReview`, once per evaluation: the review id is the evaluation id) before it
 * parks waiting for the reviewer's verdict (evaluation-waits.ts). Reviewers claim reviews for a
 * while; the review's status follows its evaluation's record, in the transaction that records it
 * (`recordEvaluations`): a verdict makes it `done`, an inconclusive outcome (not reviewed in time)
 * `expired`, a failed one `done` too (its record says why). A review's due time is its
 * evaluation's deadline, written when the evaluation parks.
 *
 * Listing reads indexes on (status, order) and (agent, status, order): a page costs its rows
 * whatever the number of reviews. Other parts of the ledger ask `isUnderOpenReview` before they
 * drop a subject's data.
 */
import type { EvaluationRecord, EvaluationSubjectRef } from '../../src/model/records.ts';

/** `open`: waiting for a reviewer; `claimed`: open, and claimed by someone until a time not yet passed. */
export type ReviewStatus = 'open' | 'claimed' | 'done' | 'expired';
export const REVIEW_STATUSES: readonly ReviewStatus[] = ['open', 'claimed', 'done', 'expired'];
/** Reviews a list page holds unless asked, and at most. */
export const DEFAULT_REVIEW_LIMIT = 50;
export const MAX_REVIEW_LIMIT = 1000;

/** Why a subject is in the review queue. */
export type ReviewReason =
  /** A binding triggered the review (its `sampling-ratio` picked the subject: an audit). */
  | { kind: 'sampled' }
  /** Another entry recorded an outcome the review entry's `after` / `when` / `score_below` route. */
  | {
      kind: 'routed';
      /** The entry whose outcome routed it. */
      after: string;
      /** That outcome: `pass`, `fail`, `inconclusive` or `error`. */
      outcome: string;
      /** Its score, when it had one. */
      score?: number;
      /** Its evaluation id. */
      evaluationId: string;
    };

/** What a review evaluation writes when it opens its review. */
export interface OpenReview {
  /** The review's evaluation id. */
  reviewId: string;
  /** The review entry (`human-review/escalations`). */
  entryId: string;
  agentId: string;
  /** The interaction reviewed; for a conversation, its revision's last interaction. */
  interactionId: string;
  subject: EvaluationSubjectRef;
  reason: ReviewReason;
  /** The routed entry's record, for a routed review: what the reviewer is asked to check. */
  routedVerdict?: EvaluationRecord;
  /** ISO-8601: when the review opened. */
  createdAt: string;
}

export interface ReviewRecord extends OpenReview {
  status: ReviewStatus;
  /** ISO-8601: when it is recorded inconclusive if no one reviews it (set once its evaluation waits). */
  dueAt?: string;
  /** Who claimed it and until when (ISO-8601), while open. */
  claim?: { reviewer: string; until: string };
  /** ISO-8601, once done or expired. */
  completedAt?: string;
  /** The review evaluation's record, once done or expired. */
  record?: EvaluationRecord;
}

export interface ReviewQuery {
  /** Default `open`. */
  status?: ReviewStatus;
  agentId?: string;
  /** ISO-8601: the time that tells a live claim from an expired one. */
  now: string;
  /** Default 50, at most 1000. */
  limit?: number;
  /** From the previous page's `nextCursor`. */
  cursor?: string;
}

export interface ReviewClaim {
  reviewId: string;
  reviewer: string;
  /** ISO-8601: now. */
  at: string;
  /** ISO-8601: when the claim lapses. */
  until: string;
}

/**
 * `claimed`: the reviewer holds it until `until` (a claim of theirs is extended); `held`: someone
 * else holds a live claim (`review.claim` says who and until when); `closed`: it is done or
 * expired; `unknown`: no review has this id.
 */
export type ClaimResult =
  | { kind: 'claimed'; review: ReviewRecord }
  | { kind: 'held'; review: ReviewRecord }
  | { kind: 'closed'; review: ReviewRecord }
  | { kind: 'unknown' };

/** A subject whose data must be kept while a review of it is open. */
export type ReviewedSubject =
  | { kind: 'interaction'; interactionId: string }
  | { kind: 'conversation'; conversationId: string; agentId: string };

export interface ReviewStore {
  /** Opens a review; a review already open (or closed) under this id is left as it is and returned. */
  openReview(review: OpenReview): Promise<ReviewRecord>;
  getReview(reviewId: string): Promise<ReviewRecord | undefined>;
  /**
   * Reviews of one status, a page at a time: `open` and `claimed` oldest first (the next to come
   * due first), `done` and `expired` most recently completed first.
   */
  listReviews(query: ReviewQuery): Promise<{ reviews: ReviewRecord[]; nextCursor?: string }>;
  claimReview(claim: ReviewClaim): Promise<ClaimResult>;
  /** Whether an open review covers the subject (for a conversation: any of its revisions). */
  isUnderOpenReview(subject: ReviewedSubject): Promise<boolean>;
}
