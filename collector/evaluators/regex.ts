/**
 * `regex`: the final response (or the transcript) matches a regular expression. Properties:
 * `pattern` (required, JavaScript syntax), `flags` (such as `i`), `must-match` (default true;
 * false passes when the pattern does not match), `target` (`final-response` or `transcript`).
 */
import { defineEvaluator } from '../../src/evaluation/evaluator.ts';
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { ConfigPropertyTypeError } from '../../src/evaluation/errors.ts';
import { choice, optionalBoolean, quote, targetText, TARGETS } from './evaluator-properties.ts';

const ID = 'regex';

export const regexEvaluator = defineEvaluator({
  id: ID,
  description: 'the final response (or transcript) matches, or must not match, a regular expression',
  // A conversation's final response (and transcript) is its last interaction's.
  subjects: ['interaction', 'conversation'],
  create: ({ ledger }) => ({
    async evaluate(context) {
      const config = context.config();
      const pattern = config.getString('pattern');
      const flags = config.has('flags') ? config.getString('flags') : '';
      let expression: RegExp;
      try {
        expression = new RegExp(pattern, flags.replace(/[gy]/g, ''));
      } catch (error) {
        throw new ConfigPropertyTypeError(
          'pattern',
          `evaluator ${ID}: config property "pattern" is not a valid regular expression: ${(error as Error).message}`,
        );
      }
      const mustMatch = optionalBoolean(config, 'must-match', true);
      const target = choice(config, ID, 'target', TARGETS);
      const interaction = await ledger.getInteraction(context.subject.interactionId);
      const match = expression.exec(targetText(interaction, target));
      const where = target === 'final-response' ? 'the final response' : 'the transcript';
      const explanation = match
        ? `${where} matches /${pattern}/${flags} at ${quote(match[0], 40)}`
        : `${where} does not match /${pattern}/${flags}`;
      let evaluation = Evaluation.of(
        mustMatch === (match !== null),
        `${explanation}${mustMatch ? '' : ' (must not match)'}`,
      );
      if (match) evaluation = evaluation.withAttribute('match', match[0].slice(0, 200));
      return effects.complete(evaluation);
    },
  }),
});
