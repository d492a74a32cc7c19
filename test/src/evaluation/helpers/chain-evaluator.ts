/**
 * A durable evaluator of three steps for the runtime tests, counting the calls of each:
 * onEvaluation → first (state) → second (input, state) → complete. `second` can wait on a gate.
 */
import { DurableEvaluator, Evaluation, type EvaluationContext } from '../../../../src/evaluation/index.ts';

export type Calls = Record<string, number>;

/** Counts one call of `step`; returns the count so far. */
export const count = (calls: Calls, step: string) => (calls[step] = (calls[step] ?? 0) + 1);

export interface ChainState {
  verdicts: string[];
}

/** onEvaluation → first (state) → second (input, state) → complete. */
export class ChainEvaluator extends DurableEvaluator<ChainState> {
  readonly calls: Calls;
  readonly secondGate: Promise<void> | undefined;
  constructor(calls: Calls, secondGate?: Promise<void>) {
    super();
    this.calls = calls;
    this.secondGate = secondGate;
  }
  override emptyState(): ChainState {
    return { verdicts: [] };
  }
  override steps() {
    return { first: this.first, second: this.second };
  }
  onEvaluation(context: EvaluationContext) {
    count(this.calls, 'onEvaluation');
    return this.effects()
      .updateState({ verdicts: [`start ${context.subject.agentId}`] })
      .transitionTo(this.first);
  }
  first() {
    count(this.calls, 'first');
    const state = this.currentState();
    state.verdicts.push('first');
    return this.effects().updateState(state).transitionTo('second').withInput({ from: 'first', n: 2 });
  }
  async second(input: { from: string; n: number }) {
    count(this.calls, 'second');
    if (this.secondGate) {
      const { signal } = this.evaluationContext();
      await Promise.race([
        this.secondGate,
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      ]);
    }
    const { verdicts } = this.currentState();
    return this.effects().complete(
      Evaluation.passed(`${verdicts.join(', ')}, second got ${input.from}/${input.n}`).withScore(input.n / 4),
    );
  }
}
