/**
 * A reply-length evaluator: reads its `min-length` property with `context.config()`.
 * A missing `min-length` throws, so the evaluation fails and the runtime records it as failed.
 * (In an application, import from 'evalon/evaluation'.)
 */
import {
  defineEvaluator,
  effects,
  Evaluation,
  type Effect,
  type EvaluationContext,
  type Evaluator,
  type LedgerClient,
} from '../../src/evaluation/index.ts';

export class ReplyLengthEvaluator implements Evaluator {
  readonly #ledger: LedgerClient;

  constructor(ledger: LedgerClient) {
    this.#ledger = ledger;
  }

  async evaluate(context: EvaluationContext): Promise<Effect> {
    const minLength = context.config().getInt('min-length');
    const interaction = await this.#ledger.getInteraction(context.subject.interactionId);
    const length = interaction.finalResponseText.length;
    return effects.complete(Evaluation.of(length >= minLength, `reply of ${length} characters, minimum ${minLength}`));
  }
}

export const replyLengthEvaluator = defineEvaluator({
  id: 'reply-length-evaluator',
  description: 'the final response has at least min-length characters',
  create: ({ ledger }) => new ReplyLengthEvaluator(ledger),
});
