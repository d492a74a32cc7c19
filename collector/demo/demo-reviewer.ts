/**
 * The demo's reviewer: while the demo runs, it works the review queue through the API, as a person
 * would through the review page or `evalon review submit`, so that the demo shows human verdicts and
 * the agreement between the LLM judge and people. It passes a reply that tells where the order is
 * (shipped or delivered) and fails any other, scoring 1 or 0.
 */
import type { InteractionRecord } from '../../src/model/records.ts';
import type { ReviewRecord } from '../ledger/review-store.ts';

export const DEMO_REVIEWER = 'demo-reviewer';
const POLL_MS = 200;

export interface DemoReviewer {
  /** Reviews answered so far. */
  answered(): number;
  /** Stops after the review in hand; resolves once stopped. Safe twice. */
  stop(): Promise<void>;
}

export function startDemoReviewer(apiUrl: string): DemoReviewer {
  const answered = new Set<string>();
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        await answerOpenReviews(apiUrl, answered, () => stopped);
      } catch {
        // The collector is stopping or busy: the next round tries again.
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, POLL_MS);
      });
    }
  })();
  return {
    answered: () => answered.size,
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}

async function answerOpenReviews(apiUrl: string, answered: Set<string>, stopped: () => boolean): Promise<void> {
  const { reviews } = (await (await fetch(`${apiUrl}/api/v1/reviews?status=open&limit=100`)).json()) as {
    reviews: ReviewRecord[];
  };
  for (const review of reviews) {
    // A review is answered once it waits for its reviewer (its due time is set then).
    if (stopped() || answered.has(review.reviewId) || review.dueAt === undefined) continue;
    const detail = (await (await fetch(`${apiUrl}/api/v1/reviews/${review.reviewId}`)).json()) as {
      interaction?: InteractionRecord;
    };
    const passed = /shipped|delivered/i.test(detail.interaction?.finalResponseText ?? '');
    const response = await fetch(`${apiUrl}/api/v1/reviews/${review.reviewId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        passed,
        score: passed ? 1 : 0,
        explanation: passed ? 'tells the customer where the order is' : 'does not say where the order is',
        reviewer: DEMO_REVIEWER,
      }),
    });
    await response.arrayBuffer();
    answered.add(review.reviewId);
  }
}
