/**
 * `contains`: the final response (or the transcript) contains given texts. Properties: `values`
 * (a text or a list, required), `match` (`all`, the default; `any`; or `none`, which passes when
 * none appears), `case-sensitive` (default false), `target` (`final-response`, the default, or
 * `transcript`).
 */
import { defineEvaluator } from '../../src/evaluation/evaluator.ts';
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { choice, optionalBoolean, quote, targetText, TARGETS } from './evaluator-properties.ts';
import { configValues } from '../../src/evaluation/config-values.ts';
import { strictObject } from '../../src/config/strict-object.ts';

const ID = 'contains';

export const containsEvaluator = defineEvaluator({
  id: ID,
  description: 'the final response (or transcript) contains all, any or none of the given texts',
  // A conversation's final response (and transcript) is its last interaction's.
  subjects: ['interaction', 'conversation'],
  type: 'deterministic',
  properties: strictObject({
    values: configValues.stringList({ nonEmpty: true }),
    match: configValues.oneOf(['all', 'any', 'none']).optional(),
    'case-sensitive': configValues.boolean().optional(),
    target: configValues.oneOf(TARGETS).optional(),
  }),
  create: ({ ledger }) => ({
    async evaluate(context) {
      const config = context.config();
      const values = config.getStringList('values');
      const match = choice(config, ID, 'match', ['all', 'any', 'none'] as const);
      const caseSensitive = optionalBoolean(config, 'case-sensitive', false);
      const target = choice(config, ID, 'target', TARGETS);
      const interaction = await ledger.getInteraction(context.subject.interactionId);
      const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
      const text = fold(targetText(interaction, target));
      const found = values.filter((value) => text.includes(fold(value)));
      const absent = values.filter((value) => !text.includes(fold(value)));
      const passed = match === 'all' ? absent.length === 0 : match === 'any' ? found.length > 0 : found.length === 0;
      const where = target === 'final-response' ? 'the final response' : 'the transcript';
      const explanation =
        match === 'none'
          ? found.length === 0
            ? `${where} contains none of ${values.map((v) => quote(v)).join(', ')}`
            : `${where} contains ${found.map((v) => quote(v)).join(', ')}`
          : absent.length === 0
            ? `${where} contains ${values.map((v) => quote(v)).join(', ')}`
            : `${where} lacks ${absent.map((v) => quote(v)).join(', ')}` +
              (found.length > 0 ? ` (contains ${found.map((v) => quote(v)).join(', ')})` : '');
      return effects.complete(
        Evaluation.of(passed, `${explanation} (${match} required)`).withAttribute('found', found.length),
      );
    },
  }),
});
