/**
 * An interaction-quality evaluator: fetches the interaction from the ledger, is
 * inconclusive for a failed interaction, fails one without a final response, and passes the rest.
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

export class InteractionQualityEvaluator implements Evaluator {
  readonly #ledger: LedgerClient;

  /** A `LedgerClient` is injected to fetch the interaction under evaluation. */
  constructor(ledger: LedgerClient) {
    this.#ledger = ledger;
  }

  async evaluate(context: EvaluationContext): Promise<Effect> {
    const interaction = await this.#ledger.getInteraction(context.subject.interactionId);

    if (interaction.failed) {
      return effects.inconclusive('interaction failed, nothing to evaluate');
    }

    const finalText = interaction.finalResponseText;
    if (finalText === '') {
      return effects.complete(Evaluation.failed('agent produced no final response'));
    }
    return effects.complete(
      Evaluation.passed('agent responded').withScore(1.0).withAttribute('length', String(finalText.length)),
    );
  }
}

/** The id is how configuration refers to the evaluator; the runtime calls `create` for each evaluation. */
export const interactionQualityEvaluator = defineEvaluator({
  id: 'interaction-quality-evaluator',
  description: 'the agent gave a final response (inconclusive for failed interactions)',
  create: ({ ledger }) => new InteractionQualityEvaluator(ledger),
});
