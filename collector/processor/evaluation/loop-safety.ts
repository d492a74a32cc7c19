/**
 * Loop safety: an interaction that happens inside an evaluation — a judge agent's own call — is
 * recorded but never triggers evaluations, whatever the bindings say, so a judge agent with a role
 * is never evaluated through the `*` role entry.
 *
 * The mark: `evalon.evaluation.id` on the interaction's root span or on its resource (both reach
 * the record's `attributes`). An interaction nested in a marked one
 * (its `flowId` chain reaches a marked interaction) is inside the evaluation too. Evalon's judges
 * set the attribute on their invocation spans; the evaluation span context of a later version
 * carries it for every span under it.
 */
import { EVALUATION_ID_ATTRIBUTE } from '../../../src/model/attributes.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';

export { EVALUATION_ID_ATTRIBUTE };
/** How far up a `flowId` chain to look (nesting deeper than this is not followed). */
const MAX_FLOW_DEPTH = 8;

export function carriesEvaluationMark(record: Pick<InteractionRecord, 'attributes'>): boolean {
  const mark = record.attributes?.[EVALUATION_ID_ATTRIBUTE];
  return mark !== undefined && mark !== null && mark !== '';
}

/** Whether `record` happened inside an evaluation; `lookup` finds the enclosing interactions. */
export async function isInsideEvaluation(
  record: InteractionRecord,
  lookup: (interactionId: string) => Promise<InteractionRecord | undefined> | InteractionRecord | undefined,
): Promise<boolean> {
  let current: InteractionRecord | undefined = record;
  for (let depth = 0; current && depth <= MAX_FLOW_DEPTH; depth++) {
    if (carriesEvaluationMark(current)) return true;
    if (!current.flowId || current.flowId === current.interactionId) return false;
    current = await lookup(current.flowId);
  }
  return false;
}
