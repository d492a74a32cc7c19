/**
 * What the `human-review` evaluator is given besides the ledger reader: where it opens its review
 * in the review queue (the ledger's review role). The collector's runtime passes it to every
 * evaluator's `create`; others ignore it. Without it (a test kit), a review evaluation still waits
 * for its signal, with no review listed anywhere.
 */
import type { EvaluatorDependencies } from '../../src/evaluation/evaluator.ts';
import type { ReviewStore } from '../ledger/review-store.ts';

export type ReviewOpener = Pick<ReviewStore, 'openReview'>;

export interface HumanReviewDependencies extends EvaluatorDependencies {
  reviews?: ReviewOpener;
  /** The collector's clock (the time a review opens); default the system's. */
  now?: () => number;
}
