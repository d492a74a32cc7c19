/**
 * What a recorded evaluation says in telemetry: the attributes of the
 * `gen_ai.evaluation.result` event (log record and span event alike), the outcome label the
 * metrics use, and the ids of the evaluated span. Written once, shared by every signal.
 */
import { EVALUATION_ID_ATTRIBUTE } from '../../src/model/attributes.ts';
import type { EvaluationRecord } from '../../src/model/records.ts';

export const EVALUATION_RESULT_EVENT = 'gen_ai.evaluation.result';

/** One vocabulary for logs, spans and metrics: a verdict is pass or fail, a failed evaluation is `error`. */
export type OutcomeLabel = 'pass' | 'fail' | 'inconclusive' | 'error';

/** `error.type` when the failed evaluation named no error class (semconv's fallback). */
export const OTHER_ERROR_TYPE = '_OTHER';

export type VerdictAttributes = Record<string, string | number | boolean>;

export function outcomeLabel(record: Pick<EvaluationRecord, 'outcome'>): OutcomeLabel {
  const outcome = record.outcome;
  if (outcome.type === 'verdict') return outcome.evaluation.passed ? 'pass' : 'fail';
  return outcome.type === 'inconclusive' ? 'inconclusive' : 'error';
}

/**
 * The event's attributes. The evaluator's own `withAttribute` values (or, for a failed evaluation,
 * what it reported before failing, e.g. a judge's token usage) come first, so that the keys
 * defined here always win over one of the same name.
 */
export function verdictAttributes(record: EvaluationRecord): VerdictAttributes {
  const outcome = record.outcome;
  const attributes: VerdictAttributes = {};
  if (outcome.type === 'verdict') Object.assign(attributes, outcome.evaluation.attributes);
  else if (outcome.type === 'failed' && outcome.attributes) Object.assign(attributes, outcome.attributes);
  attributes['gen_ai.evaluation.name'] = record.evaluatorId;
  if (outcome.type === 'verdict') {
    if (outcome.evaluation.score !== undefined) attributes['gen_ai.evaluation.score.value'] = outcome.evaluation.score;
    attributes['gen_ai.evaluation.score.label'] =
      outcome.evaluation.label ?? (outcome.evaluation.passed ? 'pass' : 'fail');
    attributes['gen_ai.evaluation.explanation'] = outcome.evaluation.explanation;
  } else if (outcome.type === 'inconclusive') {
    attributes['gen_ai.evaluation.score.label'] = 'inconclusive';
    attributes['gen_ai.evaluation.explanation'] = outcome.reason;
  } else {
    attributes['gen_ai.evaluation.explanation'] = outcome.error;
    attributes['error.type'] = outcome.errorType || OTHER_ERROR_TYPE;
  }
  attributes[EVALUATION_ID_ATTRIBUTE] = record.evaluationId;
  attributes['evalon.interaction.id'] = record.interactionId;
  attributes['evalon.evaluation.outcome'] = outcomeLabel(record);
  if (record.controlId !== undefined) attributes['evalon.control.id'] = record.controlId;
  return attributes;
}

/** The evaluation span carries the event's attributes and what identifies the run. */
export function evaluationSpanAttributes(record: EvaluationRecord, event: VerdictAttributes): VerdictAttributes {
  return {
    ...event,
    'gen_ai.agent.id': record.agentId,
    'evalon.evaluator.version': record.evaluatorVersion,
    'evalon.evaluation.attempts': record.attempts,
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
