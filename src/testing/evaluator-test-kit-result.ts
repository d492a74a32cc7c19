/**
 * `EvaluatorResult`: the outcome of one `EvaluatorTestKit.evaluate` — a verdict (`isComplete()`),
 * inconclusive, or failed — with accessors that say clearly what happened when a test asks for
 * the wrong one.
 */
import type { Evaluation } from '../evaluation/evaluation.ts';
import type { EvaluationOutcome } from '../model/records.ts';
import type { AttemptResult } from '../evaluation/run-evaluator.ts';

export class EvaluatorResult {
  /** The outcome as the ledger would record it. */
  readonly outcome: EvaluationOutcome;
  readonly #evaluation: Evaluation | undefined;
  readonly #error: unknown;

  constructor(result: AttemptResult) {
    this.outcome = result.outcome;
    this.#evaluation = result.evaluation;
    this.#error = result.error;
  }

  /** `effects.complete(evaluation)`: a verdict. */
  isComplete(): boolean {
    return this.outcome.type === 'verdict';
  }

  /** `effects.inconclusive(reason)`. */
  isInconclusive(): boolean {
    return this.outcome.type === 'inconclusive';
  }

  /** `evaluate` threw, rejected, timed out or returned something that is not an effect. */
  isFailed(): boolean {
    return this.outcome.type === 'failed';
  }

  getEvaluation(): Evaluation {
    if (!this.#evaluation) throw new Error(`the evaluation has no verdict: it was ${this.#describe()}`);
    return this.#evaluation;
  }

  getInconclusiveReason(): string {
    if (this.outcome.type !== 'inconclusive')
      throw new Error(`the evaluation was not inconclusive: it was ${this.#describe()}`);
    return this.outcome.reason;
  }

  /** What `evaluate` threw (or the error that explains the failure). */
  getError(): unknown {
    if (this.outcome.type !== 'failed') throw new Error(`the evaluation did not fail: it was ${this.#describe()}`);
    return this.#error;
  }

  /** The failure message, as recorded. */
  getFailureMessage(): string {
    if (this.outcome.type !== 'failed') throw new Error(`the evaluation did not fail: it was ${this.#describe()}`);
    return this.outcome.error;
  }

  #describe(): string {
    const outcome = this.outcome;
    if (outcome.type === 'verdict')
      return `complete (${outcome.evaluation.passed ? 'passed' : 'failed'}: ${outcome.evaluation.explanation})`;
    if (outcome.type === 'inconclusive') return `inconclusive (${outcome.reason})`;
    return `failed (${outcome.error})`;
  }
}
