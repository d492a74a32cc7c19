/**
 * `GET /api/v1/agreement`: per pair of entries (`processors.evaluation.agreement`) the pairs
 * counted, raw agreement, Cohen's kappa and the mean absolute score difference, with the kind of
 * sample. A pair with a routed entry compares verdicts on the subjects routed to it (failures of
 * another entry, say): its figures describe that slice, not the traffic at large.
 */
import type { AgreementPairReport } from '../processor/evaluation/agreement.ts';

const ROUTED_NOTE =
  'One entry of this pair judges only the subjects routed to it (after another entry’s outcome): the figures ' +
  'describe that biased sample, not all traffic. Pair entries that both sample traffic for an unbiased figure.';

export function agreementBody(pairs: readonly AgreementPairReport[]): { pairs: unknown[] } {
  return {
    pairs: pairs.map((pair) => ({ ...pair, ...(pair.sample === 'routed' ? { note: ROUTED_NOTE } : {}) })),
  };
}
