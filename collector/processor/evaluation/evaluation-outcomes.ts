/**
 * Building the `EvaluationRecord` of an attempt, the record of an evaluation abandoned after its
 * attempts died with the collector, and the rate-limited log line of failed evaluations.
 */
import type { EvaluationOutcome, EvaluationProvenance, EvaluationRecord } from '../../../src/model/records.ts';
import { EVALON_REVIEWER, GEN_AI_REQUEST_MODEL } from '../../../src/model/attributes.ts';
import type { EvaluatorDefinition } from '../../../src/evaluation/evaluator.ts';
import type { AttemptResult } from '../../../src/evaluation/run-evaluator.ts';
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { Logger } from '../../logger.ts';
import { subjectRefOf } from './evaluation-subject.ts';
import type { RunSettings } from './run-settings.ts';

/** At most one log line per evaluator this often about its failed evaluations. */
const FAILURE_LOG_INTERVAL_MS = 60_000;

/** What a record says besides the outcome: the entry's settings when it was recorded, and the evaluator's kind. */
export interface RecordContext {
  settings: Pick<RunSettings, 'controlId' | 'shadow' | 'binding' | 'configHash'>;
  definition: Pick<EvaluatorDefinition, 'type'> | undefined;
}

export function attemptRecord(
  evaluation: QueuedEvaluation,
  result: AttemptResult,
  times: { startedAt: string; completedAt: string },
  context: RecordContext,
): EvaluationRecord {
  const { controlId, shadow } = context.settings;
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
    ...(shadow ? { shadow } : {}),
    provenance: provenanceOf(context, result.outcome),
  };
}

/**
 * Where a verdict came from: the evaluator's kind (`custom` for a module evaluator that declares
 * none), the model a judge reported (`gen_ai.request.model` among its outcome's attributes), the
 * reviewer of a human verdict (`evalon.reviewer` among them), the hash of the entry's effective
 * properties and the binding used.
 */
export function provenanceOf(context: RecordContext, outcome: EvaluationOutcome | undefined): EvaluationProvenance {
  const { configHash, binding } = context.settings;
  const attributes =
    outcome?.type === 'verdict'
      ? outcome.evaluation.attributes
      : outcome?.type === 'failed'
        ? outcome.attributes
        : undefined;
  const model = attributes?.[GEN_AI_REQUEST_MODEL];
  const reviewer = attributes?.[EVALON_REVIEWER];
  return {
    evaluatorType: context.definition?.type ?? 'custom',
    ...(typeof model === 'string' && model !== '' ? { model } : {}),
    ...(typeof reviewer === 'string' && reviewer !== '' ? { reviewer } : {}),
    ...(configHash !== undefined ? { configHash } : {}),
    ...(binding !== undefined ? { binding } : {}),
  };
}

/** Attempts exhausted by restarts: failed, without running it again. */
export function abandonedRecord(evaluation: QueuedEvaluation, now: string, context: RecordContext): EvaluationRecord {
  const { controlId, shadow } = context.settings;
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
    ...(shadow ? { shadow } : {}),
    provenance: provenanceOf(context, undefined),
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
