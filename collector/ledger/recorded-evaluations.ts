/**
 * The recorded-evaluations role of the ledger: the outcomes `EvaluationQueue.recordEvaluations`
 * wrote, read back per interaction (the HTTP API, and evaluators reading earlier verdicts) and per
 * evaluator entry, newest first (agreement between entries).
 */
import type { EvaluationRecord } from '../../src/model/records.ts';

export interface RecordedEvaluations {
  /** The evaluations recorded for one interaction, oldest first. */
  getEvaluations(interactionId: string): Promise<EvaluationRecord[]>;

  /**
   * The outcomes one evaluator entry recorded, newest recorded first, a page at a time (`before`:
   * the previous page's `next`): agreement between entries is rebuilt from them at start. Reads an
   * index on (entry, order of recording): a page costs its rows.
   */
  pageEntryEvaluations(query: {
    evaluatorId: string;
    limit: number;
    before?: string;
  }): Promise<{ records: EvaluationRecord[]; next?: string }>;
}
