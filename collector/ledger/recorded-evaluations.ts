/**
 * The recorded-evaluations role of the ledger: the outcomes `EvaluationQueue.recordEvaluations`
 * wrote, read back per interaction (the HTTP API, and evaluators reading earlier verdicts), the
 * recent ones of some evaluator entries (token budgets rebuilt at start), and one entry's newest
 * first (agreement between entries, rebuilt at start).
 */
import type { EvaluationRecord } from '../../src/model/records.ts';

/**
 * How far past `since` `loadRecentEvaluations` reads before it stops: records are written in
 * about the order they complete (a group commit apart), never this far out of it.
 */
export const RECENT_EVALUATIONS_SLACK_MS = 10 * 60_000;

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

  /**
   * The recorded evaluations of the given evaluator entries that completed at or after `since`
   * (ISO-8601), newest recorded first. Records are read back from the newest written, and the read
   * stops at records that completed more than `RECENT_EVALUATIONS_SLACK_MS` before `since`: its
   * cost is the records of the window, not the whole table.
   */
  loadRecentEvaluations(query: { evaluatorIds: string[]; since: string }): Promise<EvaluationRecord[]>;
}
