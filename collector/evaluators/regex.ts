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
import { configValues } from '../../src/evaluation/config-values.ts';
import { strictObject } from '../../src/config/strict-object.ts';
import { whenRead } from '../config/schema-kit.ts';

const ID = 'regex';

/** `g` and `y` make `exec` stateful: they are dropped, the first match is what counts. */
const compile = (pattern: string, flags: string) => new RegExp(pattern, flags.replace(/[gy]/g, ''));

/** `pattern` compiled with `flags`, so a pattern that cannot run is a configuration problem. */
export const regexProperties = strictObject({
  pattern: configValues.string(),
  flags: configValues.string().optional(),
  'must-match': configValues.boolean().optional(),
  target: configValues.oneOf(TARGETS).optional(),
}).superRefine(
  ({ pattern, flags = '' }, context) => {
    try {
      compile('', flags);
    } catch {
      context.addIssue({
        code: 'custom',
        path: ['flags'],
        message:
          'must be regular expression flags, each once, of d, g, i, m, s, u, v, y ' + `(got ${JSON.stringify(flags)})`,
      });
      return;
    }
    try {
      compile(pattern, flags);
    } catch (error) {
      const reason = (error as Error).message.split(': ').at(-1);
      context.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: `must be a valid regular expression: ${reason} (got ${JSON.stringify(pattern)})`,
      });
    }
  },
  whenRead('pattern', 'flags'),
);

export const regexEvaluator = defineEvaluator({
  id: ID,
  description: 'the final response (or transcript) matches, or must not match, a regular expression',
  // A conversation's final response (and transcript) is its last interaction's.
  subjects: ['interaction', 'conversation'],
  type: 'deterministic',
  properties: regexProperties,
  create: ({ ledger }) => ({
    async evaluate(context) {
      const config = context.config();
      const pattern = config.getString('pattern');
      const flags = config.has('flags') ? config.getString('flags') : '';
      let expression: RegExp;
      try {
        expression = compile(pattern, flags);
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
