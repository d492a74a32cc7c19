/**
 * What a queued evaluation judges, as the evaluator sees it (`context.subject`) and as its record
 * names it (`EvaluationRecord.subject`): one interaction, or a conversation revision whose last
 * interaction is the evaluation's `interactionId`.
 */
import { UnsupportedSubjectError } from '../../../src/evaluation/errors.ts';
import type { Subject } from '../../../src/evaluation/evaluation-context.ts';
import { frozenSubject } from '../../../src/evaluation/run-evaluator.ts';
import type { EvaluatorDefinition } from '../../../src/evaluation/evaluator.ts';
import type { EvaluationSubjectRef } from '../../../src/model/records.ts';
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';

export function subjectOf(evaluation: QueuedEvaluation): Subject {
  const conversation = evaluation.subject;
  if (conversation?.kind === 'conversation') {
    return frozenSubject({
      kind: 'conversation',
      conversationId: conversation.conversationId,
      agentId: conversation.agentId,
      revision: conversation.revision,
      interactionIds: conversation.interactionIds,
      interactionId: evaluation.interactionId,
    });
  }
  return frozenSubject({
    kind: 'interaction',
    interactionId: evaluation.interactionId,
    agentId: evaluation.agentId,
    ...(evaluation.flowId ? { flowId: evaluation.flowId } : {}),
  });
}

/** What the record says was evaluated. */
export function subjectRefOf(evaluation: QueuedEvaluation): EvaluationSubjectRef {
  const conversation = evaluation.subject;
  return conversation?.kind === 'conversation'
    ? {
        kind: 'conversation',
        conversationId: conversation.conversationId,
        agentId: conversation.agentId,
        revision: conversation.revision,
      }
    : { kind: 'interaction' };
}

/**
 * Why `definition` cannot run `evaluation`, or undefined when it can: a conversation queued for
 * an evaluator that does not judge conversations (its module changed since it was queued; the
 * configuration check stops such a binding at startup).
 */
export function unsupportedSubject(
  definition: EvaluatorDefinition,
  evaluation: QueuedEvaluation,
): UnsupportedSubjectError | undefined {
  const kind = evaluation.subject?.kind ?? 'interaction';
  if (definition.subjects.includes(kind)) return undefined;
  return new UnsupportedSubjectError(
    `evaluator ${definition.id}: cannot judge a ${kind} (it declares subjects: ${definition.subjects.join(', ')}; ` +
      `bind it with trigger: interaction, or define it with subjects: ['interaction', '${kind}'])`,
  );
}
