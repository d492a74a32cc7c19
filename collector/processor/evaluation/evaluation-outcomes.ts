/**
 * Building the `EvaluationRecord` of an attempt, the record of an evaluation abandoned after its
 * attempts died with the collector, and the rate-limited log line of failed evaluations.
 */
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { AttemptResult } from '../../../src/evaluation/run-evaluator.ts';
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { Logger } from '../../logger.ts';
import { subjectRefOf } from './evaluation-subject.ts';

/** At most one log line per evaluator this often about its failed evaluations. */
const FAILURE_LOG_INTERVAL_MS = 60_000;

export function attemptRecord(
  evaluation: QueuedEvaluation,
  result: AttemptResult,
  times: { startedAt: string; completedAt: string },
  controlId: string | undefined,
): EvaluationRecord {
  return {
    evaluationId: evaluation.evaluationId,
    interactionId: evaluation.interactionId,
    evaluatorId: evaluation.evaluatorId,
    evaluatorVersion: evaluation.evaluatorVersion,
    ...(controlId !== undefined ? { controlId } : {}),
    agentId: evaluation.agentId,
    outcome: result.outcome,
    triggeredAt: evaluation.triggeredAt,
    startedAt: times.startedAt,
    completedAt: times.completedAt,
    attempts: evaluation.attempts + 1,
    subject: subjectRefOf(evaluation),
  };
}

/** Attempts exhausted by restarts: failed, without running it again. */
export function abandonedRecord(
  evaluation: QueuedEvaluation,
  now: string,
  controlId: string | undefined,
): EvaluationRecord {
  const error =
    `evaluator ${evaluation.evaluatorId}: ${evaluation.attempts} attempts started and none finished (the ` +
    'collector stopped during each); not run again';
  return {
    evaluationId: evaluation.evaluationId,
    interactionId: evaluation.interactionId,
    evaluatorId: evaluation.evaluatorId,
    evaluatorVersion: evaluation.evaluatorVersion,
    ...(controlId !== undefined ? { controlId } : {}),
    agentId: evaluation.agentId,
    outcome: { type: 'failed', error, errorType: 'EvaluationAbandonedError' },
    triggeredAt: evaluation.triggeredAt,
    startedAt: evaluation.startedAt ?? now,
    completedAt: now,
    attempts: evaluation.attempts,
    subject: subjectRefOf(evaluation),
  };
}

/** The runtime logs why an evaluation failed: at most one line per evaluator a minute, with a count. */
export function createFailureLog(
  logger: Logger,
  clock: () => number,
): (record: EvaluationRecord, error: string) => void {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (record, error) => {
    const now = clock();
    const previous = last.get(record.evaluatorId);
    if (previous && now - previous.at < FAILURE_LOG_INTERVAL_MS) {
      previous.suppressed++;
      return;
    }
    const more =
      previous && previous.suppressed > 0
        ? ` (${previous.suppressed} more failed evaluations of this evaluator since the last report)`
        : '';
    last.set(record.evaluatorId, { at: now, suppressed: 0 });
    const of =
      record.subject?.kind === 'conversation'
        ? `conversation ${record.subject.conversationId} (revision ${record.subject.revision})`
        : `interaction ${record.interactionId}`;
    logger.warn(`evaluation ${record.evaluationId} of ${of} failed: ${error}${more}`);
  };
}
