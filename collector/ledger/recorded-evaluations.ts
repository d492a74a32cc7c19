/**
 * The recorded-evaluations role of the ledger: the outcomes `EvaluationQueue.recordEvaluations`
 * wrote, read back per interaction (the HTTP API, and evaluators reading earlier verdicts).
 */
import type { EvaluationRecord } from '../../src/model/records.ts';

export interface RecordedEvaluations {
  /** The evaluations recorded for one interaction, oldest first. */
  getEvaluations(interactionId: string): Promise<EvaluationRecord[]>;
}
