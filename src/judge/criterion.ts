/**
 * A criterion the judge scores a transcript against: the scenario's `eval_criteria` entry, and
 * equally the `criteria` property of the collector's built-in `criteria-judge` evaluator.
 */

export type CriterionType = 'binary' | 'scored' | 'rubric';

/** Weight of a criterion that does not set `weight`. */
export const DEFAULT_CRITERION_WEIGHT = 1;

/**
 * Threshold a scored or rubric criterion needs when it sets no `pass_threshold`: the judge reports
 * a score, never a pass, so the threshold decides (docs/design-notes.md).
 */
export const DEFAULT_PASS_THRESHOLD = 0.5;

export interface Criterion {
  name: string;
  description: string;
  criterionType: CriterionType;
  /**
   * `true`: the transcript must record at least one tool call; a list: each named tool must have
   * been called. `false`: no check. Checked against the transcript and also asked of the judge.
   */
  requireToolCall: boolean | string[];
  weight: number;
  /** Scored and rubric criteria pass when `score >= passThreshold`; absent means the default. */
  passThreshold?: number;
}

/** The threshold a criterion is held to (binary criteria have none). */
export function effectiveThreshold(criterion: Criterion): number | undefined {
  if (criterion.criterionType === 'binary') return undefined;
  return criterion.passThreshold ?? DEFAULT_PASS_THRESHOLD;
}
