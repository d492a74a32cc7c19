/**
 * A route, as an evaluator entry's effective properties describe it (`after`, `when`,
 * `score_below`), and whether a recorded outcome matches it. Pure: routing.ts queues what matches,
 * triggers.ts keeps routed entries from being triggered by interactions or conversations.
 */
import type { EvaluationRecord } from '../../../src/model/records.ts';

/** The outcomes `when` names: pass and fail (verdicts), inconclusive, error (a failed evaluation). */
export const ROUTED_OUTCOMES = ['pass', 'fail', 'inconclusive', 'error'] as const;
export type RoutedOutcome = (typeof ROUTED_OUTCOMES)[number];

export interface Route {
  after: string;
  when: readonly RoutedOutcome[];
  scoreBelow?: number;
}

/** pass / fail / inconclusive / error, as the verdict metrics name outcomes. */
export function outcomeOf(record: Pick<EvaluationRecord, 'outcome'>): RoutedOutcome {
  const outcome = record.outcome;
  if (outcome.type === 'verdict') return outcome.evaluation.passed ? 'pass' : 'fail';
  return outcome.type === 'inconclusive' ? 'inconclusive' : 'error';
}

/** The route the effective properties describe, or undefined when they set no `after`. */
export function routeOf(config: Record<string, unknown>): Route | undefined {
  const after = config.after;
  if (typeof after !== 'string' || after === '') return undefined;
  const scoreBelow = typeof config.score_below === 'number' ? config.score_below : undefined;
  const written = Array.isArray(config.when)
    ? config.when
    : typeof config.when === 'string'
      ? [config.when]
      : undefined;
  const when = (written ?? (scoreBelow === undefined ? ['fail'] : [])).filter((item): item is RoutedOutcome =>
    (ROUTED_OUTCOMES as readonly string[]).includes(item as string),
  );
  return { after, when, ...(scoreBelow !== undefined ? { scoreBelow } : {}) };
}

export function routeMatches(route: Route, record: EvaluationRecord): boolean {
  if (record.evaluatorId !== route.after) return false;
  if (route.when.includes(outcomeOf(record))) return true;
  const score = record.outcome.type === 'verdict' ? record.outcome.evaluation.score : undefined;
  return route.scoreBelow !== undefined && score !== undefined && score < route.scoreBelow;
}
