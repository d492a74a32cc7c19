/**
 * `tool-call-required`: the interaction called the named tools; for a conversation, any of its
 * interactions did. Properties: `tools` (a name or a list, required), `match` (`all`, the
 * default, or `any`), `require-success` (default false: a call that ended in an error counts
 * only when this is false).
 */
import { defineEvaluator } from '../../src/evaluation/evaluator.ts';
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { subjectInteractions } from './conversation-transcript.ts';
import { choice, optionalBoolean } from './evaluator-properties.ts';
import { configValues } from '../../src/evaluation/config-values.ts';
import { strictObject } from '../../src/config/strict-object.ts';

const ID = 'tool-call-required';

export const toolCallRequiredEvaluator = defineEvaluator({
  id: ID,
  description: 'the interaction (or any interaction of the conversation) called the named tools (all or any)',
  subjects: ['interaction', 'conversation'],
  type: 'deterministic',
  properties: strictObject({
    tools: configValues.stringList({ nonEmpty: true }),
    match: configValues.oneOf(['all', 'any']).optional(),
    'require-success': configValues.boolean().optional(),
  }),
  create: ({ ledger }) => ({
    async evaluate(context) {
      const config = context.config();
      const required = config.getStringList('tools');
      const match = choice(config, ID, 'match', ['all', 'any'] as const);
      const requireSuccess = optionalBoolean(config, 'require-success', false);
      const interactions = await subjectInteractions(ledger, context.subject);
      const called = new Set(
        interactions
          .flatMap((interaction) => interaction.toolCalls)
          .filter((call) => !requireSuccess || call.error === undefined)
          .map((call) => call.name),
      );
      const present = required.filter((name) => called.has(name));
      const missing = required.filter((name) => !called.has(name));
      const passed = match === 'all' ? missing.length === 0 : present.length > 0;
      const turns = context.subject.kind === 'conversation' ? ` in ${interactions.length} turns` : '';
      const calledText =
        present.length > 0 ? `called ${present.join(', ')}${turns}` : `called none of the required tools${turns}`;
      const missingText =
        missing.length > 0 ? `; not called${requireSuccess ? ' successfully' : ''}: ${missing.join(', ')}` : '';
      return effects.complete(
        Evaluation.of(passed, `${calledText}${missingText} (${match} required)`)
          .withScore(required.length === 0 ? 1 : present.length / required.length)
          .withAttribute('missing', missing.join(',')),
      );
    },
  }),
});
