/**
 * What a recorded evaluation says in telemetry: the attributes of the
 * `gen_ai.evaluation.result` event (log record and span event alike), the outcome and subject
 * labels the metrics use, and the ids of the evaluated span (for a conversation, its revision's
 * last interaction). Written once, shared by every signal.
 */
import type { EvaluationRecord } from '../../src/model/records.ts';
import {
  ERROR_TYPE,
  EVALON_CONTROL_ID,
  EVALON_CONVERSATION_REVISION,
  EVALON_EVALUATION_ATTEMPTS,
  EVALON_EVALUATION_CONFIG_HASH,
  EVALON_EVALUATION_OUTCOME,
  EVALON_EVALUATION_SUBJECT,
  EVALON_EVALUATION_SHADOW,
  EVALON_EVALUATOR_VERSION,
  EVALON_INTERACTION_ID,
  EVALON_REVIEWER,
  EVALUATION_ID_ATTRIBUTE,
  GEN_AI_AGENT_ID,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_EVALUATION_EVALUATOR_TYPE,
  GEN_AI_EVALUATION_EVALUATOR_VERSION,
  GEN_AI_EVALUATION_EXPLANATION,
  GEN_AI_EVALUATION_NAME,
  GEN_AI_EVALUATION_SCORE_LABEL,
  GEN_AI_EVALUATION_SCORE_VALUE,
  GEN_AI_REQUEST_MODEL,
} from '../../src/model/attributes.ts';

/** One vocabulary for logs, spans and metrics: a verdict is pass or fail, a failed evaluation is `error`. */
export type OutcomeLabel = 'pass' | 'fail' | 'inconclusive' | 'error';

/** `error.type` when the failed evaluation named no error class (semconv's fallback). */
export const OTHER_ERROR_TYPE = '_OTHER';

export type VerdictAttributes = Record<string, string | number | boolean>;

/** What the evaluation judged: `interaction` (also for records written before conversations) or `conversation`. */
export function subjectLabel(record: Pick<EvaluationRecord, 'subject'>): 'interaction' | 'conversation' {
  return record.subject?.kind === 'conversation' ? 'conversation' : 'interaction';
}

export function outcomeLabel(record: Pick<EvaluationRecord, 'outcome'>): OutcomeLabel {
  const outcome = record.outcome;
  if (outcome.type === 'verdict') return outcome.evaluation.passed ? 'pass' : 'fail';
  return outcome.type === 'inconclusive' ? 'inconclusive' : 'error';
}

/**
 * The event's attributes. A score is a number here; the OTLP exporters send it as a double even
 * when it is whole (otlp/double-scores.ts). The evaluator's own `withAttribute` values (or, for a failed evaluation,
 * what it reported before failing, e.g. a judge's token usage) come first, so that the keys
 * defined here always win over one of the same name.
 */
export function verdictAttributes(record: EvaluationRecord): VerdictAttributes {
  const outcome = record.outcome;
  const attributes: VerdictAttributes = {};
  if (outcome.type === 'verdict') Object.assign(attributes, outcome.evaluation.attributes);
  else if (outcome.type === 'failed' && outcome.attributes) Object.assign(attributes, outcome.attributes);
  attributes[GEN_AI_EVALUATION_NAME] = record.evaluatorId;
  if (outcome.type === 'verdict') {
    if (outcome.evaluation.score !== undefined) attributes[GEN_AI_EVALUATION_SCORE_VALUE] = outcome.evaluation.score;
    attributes[GEN_AI_EVALUATION_SCORE_LABEL] =
      outcome.evaluation.label ?? (outcome.evaluation.passed ? 'pass' : 'fail');
    attributes[GEN_AI_EVALUATION_EXPLANATION] = outcome.evaluation.explanation;
  } else if (outcome.type === 'inconclusive') {
    attributes[GEN_AI_EVALUATION_SCORE_LABEL] = 'inconclusive';
    attributes[GEN_AI_EVALUATION_EXPLANATION] = outcome.reason;
  } else {
    attributes[GEN_AI_EVALUATION_EXPLANATION] = outcome.error;
    attributes[ERROR_TYPE] = outcome.errorType || OTHER_ERROR_TYPE;
  }
  attributes[EVALUATION_ID_ATTRIBUTE] = record.evaluationId;
  attributes[EVALON_INTERACTION_ID] = record.interactionId;
  attributes[EVALON_EVALUATION_OUTCOME] = outcomeLabel(record);
  attributes[EVALON_EVALUATION_SUBJECT] = subjectLabel(record);
  const subject = record.subject;
  if (subject?.kind === 'conversation') {
    attributes[GEN_AI_CONVERSATION_ID] = subject.conversationId;
    attributes[EVALON_CONVERSATION_REVISION] = subject.revision;
  }
  if (record.controlId !== undefined) attributes[EVALON_CONTROL_ID] = record.controlId;
  // Provenance: which entry version, which kind of evaluator, which model and properties gave it.
  attributes[GEN_AI_EVALUATION_EVALUATOR_VERSION] = record.evaluatorVersion;
  const provenance = record.provenance;
  if (provenance) {
    attributes[GEN_AI_EVALUATION_EVALUATOR_TYPE] = provenance.evaluatorType;
    if (provenance.model !== undefined) attributes[GEN_AI_REQUEST_MODEL] = provenance.model;
    if (provenance.configHash !== undefined) attributes[EVALON_EVALUATION_CONFIG_HASH] = provenance.configHash;
    if (provenance.reviewer !== undefined) attributes[EVALON_REVIEWER] = provenance.reviewer;
  }
  if (record.shadow === true) attributes[EVALON_EVALUATION_SHADOW] = true;
  return attributes;
}

/** The evaluation span carries the event's attributes and what identifies the run. */
export function evaluationSpanAttributes(record: EvaluationRecord, event: VerdictAttributes): VerdictAttributes {
  return {
    ...event,
    [GEN_AI_AGENT_ID]: record.agentId,
    [EVALON_EVALUATOR_VERSION]: record.evaluatorVersion,
    [EVALON_EVALUATION_ATTEMPTS]: record.attempts,
  };
}

export interface EvaluatedSpan {
  traceId: string;
  spanId: string;
}

const INTERACTION_ID = /^([0-9a-f]{32})-([0-9a-f]{16})$/;

/** The interaction span's ids, read from the interaction id (`<traceId>-<spanId>`). */
export function evaluatedSpanOf(interactionId: string): EvaluatedSpan | undefined {
  const match = INTERACTION_ID.exec(interactionId);
  return match ? { traceId: match[1], spanId: match[2] } : undefined;
}
