/**
 * `reply-length`: the final response is at least `min-length` characters long (the documented
 * example evaluator), and at most `max-length` when that is set. Characters are Unicode code
 * points. Properties: `min-length` (required), `max-length`.
 */
import { defineEvaluator } from '../../src/evaluation/evaluator.ts';
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { ConfigPropertyTypeError } from '../../src/evaluation/errors.ts';
import { configValues } from '../../src/evaluation/config-values.ts';
import { strictObject } from '../../src/config/strict-object.ts';
import { whenRead } from '../config/schema-kit.ts';

/** `min-length` (required) and `max-length`, at least `min-length`. */
export const replyLengthProperties = strictObject({
  'min-length': configValues.int({ min: 0 }),
  'max-length': configValues.int({ min: 0 }).optional(),
}).superRefine(
  (properties, context) => {
    const { 'min-length': min, 'max-length': max } = properties;
    if (max !== undefined && max < min)
      context.addIssue({
        code: 'custom',
        path: ['max-length'],
        message: `must be at least min-length (got ${max} < ${min})`,
      });
  },
  whenRead('min-length', 'max-length'),
);

export const replyLengthEvaluator = defineEvaluator({
  id: 'reply-length',
  description: 'the final response has at least min-length (and at most max-length) characters',
  // A conversation's final response is its last interaction's.
  subjects: ['interaction', 'conversation'],
  type: 'deterministic',
  properties: replyLengthProperties,
  create: ({ ledger }) => ({
    async evaluate(context) {
      const config = context.config();
      const minLength = config.getInt('min-length');
      const maxLength = config.has('max-length') ? config.getInt('max-length') : undefined;
      if (minLength < 0 || (maxLength !== undefined && maxLength < minLength)) {
        throw new ConfigPropertyTypeError(
          'min-length',
          'evaluator reply-length: min-length must be at least 0 and at most max-length (got ' +
            `${minLength}${maxLength !== undefined ? ` and ${maxLength}` : ''})`,
        );
      }
      const interaction = await ledger.getInteraction(context.subject.interactionId);
      const length = [...interaction.finalResponseText].length;
      const passed = length >= minLength && (maxLength === undefined || length <= maxLength);
      const bounds = maxLength === undefined ? `minimum ${minLength}` : `between ${minLength} and ${maxLength}`;
      return effects.complete(
        Evaluation.of(passed, `reply of ${length} characters, ${bounds}`).withAttribute('length', length),
      );
    },
  }),
});
