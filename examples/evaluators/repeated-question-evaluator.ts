/**
 * A conversation evaluator: over a whole conversation, the agent asked the customer for the same
 * thing (the order number, by default) at most `max-asks` times. It reads the conversation as the
 * revision under evaluation ended, turn by turn. (In an application, import from
 * 'evalon/evaluation'.)
 *
 * ```yaml
 * repeated-question-evaluator:
 *   max-asks: 1                       # default 1
 *   asking-for: order number|the number   # a regular expression, case-insensitive
 *   agents:
 *     support-agent: { trigger: conversation }
 * ```
 */
import { defineEvaluator, effects, Evaluation } from '../../src/evaluation/index.ts';

const DEFAULT_ASKING_FOR = 'order number|the number';

export const repeatedQuestionEvaluator = defineEvaluator({
  id: 'repeated-question-evaluator',
  description: 'over a conversation, the agent asked for the same thing (the order number) at most max-asks times',
  subjects: ['conversation'],
  create: ({ ledger }) => ({
    async evaluate(context) {
      const { subject } = context;
      if (subject.kind !== 'conversation') return effects.inconclusive('judges whole conversations only');
      const config = context.config();
      const maxAsks = config.has('max-asks') ? config.getInt('max-asks') : 1;
      const askingFor = new RegExp(config.has('asking-for') ? config.getString('asking-for') : DEFAULT_ASKING_FOR, 'i');
      const conversation = await ledger.getConversation(subject.conversationId, subject.agentId, {
        revision: subject.revision,
      });
      // A question of the agent's is a reply that asks (a question mark) about the thing.
      const asks = conversation.interactions.filter(
        (turn) => turn.finalResponseText.includes('?') && askingFor.test(turn.finalResponseText),
      );
      const turns = conversation.interactions.length;
      return effects.complete(
        Evaluation.of(
          asks.length <= maxAsks,
          `asked for it ${asks.length} ${asks.length === 1 ? 'time' : 'times'} in ${turns} turns (at most ${maxAsks})`,
        )
          .withScore(asks.length <= maxAsks ? 1 : maxAsks / asks.length)
          .withAttribute('asks', asks.length)
          .withAttribute('turns', turns),
      );
    },
  }),
});
