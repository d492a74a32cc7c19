/**
 * `json-schema`: the final response is JSON that validates against `schema` (a JSON Schema,
 * written as a mapping in the configuration; draft 2020-12 unless its `$schema` names 2019-09 or
 * draft-07), with the full validator of json-schema-compiler.ts. The schema is compiled when the
 * configuration is checked (startup, `evalon validate`): an invalid one is a configuration problem
 * at its YAML path. A reply that is one fenced code block (```json … ```) is read from inside the
 * fence unless `allow-code-fence: false`. Properties: `schema` (required), `allow-code-fence`.
 */
import { strictObject } from '../../src/config/strict-object.ts';
import { configValues } from '../../src/evaluation/config-values.ts';
import { defineEvaluator } from '../../src/evaluation/evaluator.ts';
import { effects } from '../../src/evaluation/effect.ts';
import { Evaluation } from '../../src/evaluation/evaluation.ts';
import { ConfigPropertyTypeError } from '../../src/evaluation/errors.ts';
import { optionalBoolean } from './evaluator-properties.ts';
import { compileJsonSchema, describeJsonSchemaErrors, JsonSchemaError } from './json-schema-compiler.ts';

const ID = 'json-schema';
const FENCE = /^\s*```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)\n?```\s*$/;
/** Validation errors quoted in a failed verdict's explanation. */
const MAX_QUOTED_ERRORS = 5;

/** `schema` must compile: each problem is reported where it is written inside the schema. */
export const jsonSchemaProperties = strictObject({
  schema: configValues.mapping().superRefine((schema, context) => {
    try {
      compileJsonSchema(schema);
    } catch (error) {
      if (!(error instanceof JsonSchemaError)) throw error;
      // A problem inside the schema is reported where it is written; one of the whole schema, on it.
      for (const { at, message } of error.problems)
        context.addIssue({
          code: 'custom',
          path: at,
          message: at.length > 0 ? message : `is not a valid JSON Schema: ${message}`,
        });
    }
  }),
  'allow-code-fence': configValues.boolean().optional(),
});

function validatorOf(schema: Record<string, unknown>) {
  try {
    return compileJsonSchema(schema);
  } catch (error) {
    if (!(error instanceof JsonSchemaError)) throw error;
    throw new ConfigPropertyTypeError(
      'schema',
      `evaluator ${ID}: config property "schema" is not a JSON Schema Evalon can use: ${error.message}`,
    );
  }
}

export const jsonSchemaEvaluator = defineEvaluator({
  id: ID,
  description: 'the final response is JSON valid against a JSON Schema',
  // A conversation's final response is its last interaction's.
  subjects: ['interaction', 'conversation'],
  type: 'deterministic',
  properties: jsonSchemaProperties,
  create: ({ ledger }) => ({
    async evaluate(context) {
      const config = context.config();
      const validate = validatorOf(config.getObject('schema'));
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
      if (validate(value))
        return effects.complete(Evaluation.passed('the final response is JSON valid against the schema'));
      const errors = describeJsonSchemaErrors(validate.errors ?? []);
      const quoted = errors.slice(0, MAX_QUOTED_ERRORS).join('; ');
      const more = errors.length > MAX_QUOTED_ERRORS ? `; and ${errors.length - MAX_QUOTED_ERRORS} more` : '';
      return effects.complete(
        Evaluation.failed(`the final response does not match the schema: ${quoted}${more}`).withAttribute(
          'issues',
          errors.length,
        ),
      );
    },
  }),
});
