/**
 * The effect `evaluate` returns: `effects.complete(evaluation)` records the
 * verdict; `effects.inconclusive(reason)` records that the evaluator ran but reached no verdict.
 * A thrown error (or a rejected promise) is neither: it records a **failed** evaluation.
 *
 * `effects` can also be called, `effects().complete(…)`, as the durable evaluator's `this.effects()` reads.
 */
import { Evaluation } from './evaluation.ts';
import { InvalidEvaluationError } from './errors.ts';

const EFFECT = Symbol.for('evalon.evaluation.effect');

export type Effect =
  | { readonly kind: 'complete'; readonly evaluation: Evaluation; readonly [EFFECT]: true }
  | { readonly kind: 'inconclusive'; readonly reason: string; readonly [EFFECT]: true };

export interface Effects {
  /** The evaluation completed with its verdict. */
  complete(evaluation: Evaluation): Effect;
  /** The evaluator ran but reached no verdict (no transcript, not applicable…). */
  inconclusive(reason: string): Effect;
}

const builder: Effects = {
  complete(evaluation) {
    if (!(evaluation instanceof Evaluation)) {
      throw new InvalidEvaluationError(
        'effects.complete: expected an Evaluation (build one with Evaluation.passed, failed or of)',
      );
    }
    return Object.freeze({ kind: 'complete', evaluation, [EFFECT]: true }) as Effect;
  },
  inconclusive(reason) {
    if (typeof reason !== 'string' || reason === '') {
      throw new InvalidEvaluationError('effects.inconclusive: the reason must be a non-empty string');
    }
    return Object.freeze({ kind: 'inconclusive', reason, [EFFECT]: true }) as Effect;
  },
};

export const effects: Effects & (() => Effects) = Object.assign(() => builder, builder);

/** Whether `value` was made by `effects` (what the runtime accepts from `evaluate`). */
export function isEffect(value: unknown): value is Effect {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[EFFECT] === true;
}
