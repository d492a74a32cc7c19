/**
 * `json-schema`: the final response is JSON that validates against `schema` (a JSON Schema,
 * written as a mapping in the configuration; validated with zod's JSON Schema support). A reply
 * that is one fenced code block (```json … ```) is read from inside the fence unless
 * `allow-code-fence: false`. Properties: `schema` (required), `allow-code-fence`.
 */
import * as z from 'zod';
import { defineEvaluator } from '../../src/evaluation/evaluator.ts';
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { ConfigPropertyTypeError } from '../../src/evaluation/errors.ts';
import { optionalBoolean } from './evaluator-properties.ts';

const ID = 'json-schema';
const FENCE = /^\s*```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)\n?```\s*$/;
/** Compiled schemas kept, by their JSON text. */
const MAX_CACHED_SCHEMAS = 64;
const compiled = new Map<string, z.ZodType>();

function compile(schema: Record<string, unknown>): z.ZodType {
  const key = JSON.stringify(schema);
  let validator = compiled.get(key);
  if (!validator) {
    try {
      validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (error) {
      throw new ConfigPropertyTypeError(
        'schema',
        `evaluator ${ID}: config property "schema" is not a JSON Schema zod can use: ${(error as Error).message}`,
      );
    }
    if (compiled.size >= MAX_CACHED_SCHEMAS) compiled.clear();
    compiled.set(key, validator);
  }
  return validator;
}

export const jsonSchemaEvaluator = defineEvaluator({
  id: ID,
  description: 'the final response is JSON valid against a JSON Schema',
  // A conversation's final response is its last interaction's.
  subjects: ['interaction', 'conversation'],
  create: ({ ledger }) => ({
    async evaluate(context) {
      const config = context.config();
      const validator = compile(config.getObject('schema'));
      const allowFence = optionalBoolean(config, 'allow-code-fence', true);
      const interaction = await ledger.getInteraction(context.subject.interactionId);
      let text = interaction.finalResponseText;
      if (text.trim() === '') return effects.complete(Evaluation.failed('the final response is empty, not JSON'));
      const fenced = allowFence ? FENCE.exec(text) : null;
      if (fenced) text = fenced[1];
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return effects.complete(Evaluation.failed(`the final response is not JSON: ${(error as Error).message}`));
      }
      const result = validator.safeParse(value);
      if (result.success)
        return effects.complete(Evaluation.passed('the final response is JSON valid against the schema'));
      const issues = result.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`);
      const more = result.error.issues.length > 5 ? `; and ${result.error.issues.length - 5} more` : '';
      return effects.complete(
        Evaluation.failed(`the final response does not match the schema: ${issues.join('; ')}${more}`).withAttribute(
          'issues',
          result.error.issues.length,
        ),
      );
    },
  }),
});
