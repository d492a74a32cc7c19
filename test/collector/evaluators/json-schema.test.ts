/**
 * `json-schema` validates with a full JSON Schema validator: the keywords of draft 2020-12 (the
 * default), 2019-09 and draft-07 by `$schema`, formats, and schemas checked (compiled) before the
 * evaluator runs.
 */
import { describe, expect, it } from 'vitest';
import { jsonSchemaEvaluator } from '../../../collector/evaluators/index.ts';
import { compileJsonSchema, draftOf } from '../../../collector/evaluators/json-schema-compiler.ts';
import { checkEvaluatorProperties } from '../../../collector/processor/evaluation/property-checks.ts';
import { Subject } from '../../../src/evaluation/index.ts';
import { EvaluatorTestKit, TestLedgerClient, testInteractionRecord } from '../../../src/testing/index.ts';

/** Whether the evaluator passes `reply` (JSON text) against `schema`, and its explanation. */
async function judge(schema: Record<string, unknown>, reply: unknown) {
  const record = testInteractionRecord({ finalResponseText: JSON.stringify(reply) });
  const result = await EvaluatorTestKit.of(jsonSchemaEvaluator)
    .withLedger(TestLedgerClient.create().seed(record))
    .withConfig({ schema })
    .evaluate(Subject.interaction(record.interactionId, record.agentId));
  const evaluation = result.getEvaluation();
  return { passed: evaluation.passed, explanation: evaluation.explanation };
}

const passes = async (schema: Record<string, unknown>, reply: unknown) => (await judge(schema, reply)).passed;

function schemaProblems(schema: unknown): string[] {
  const properties = { schema };
  return checkEvaluatorProperties({
    evaluators: { 'json-schema': { properties, raw: properties, agents: {}, agentRoles: {} } },
    definitionOf: () => jsonSchemaEvaluator,
  }).map((problem) => problem.message);
}

describe('json-schema keywords (draft 2020-12 by default)', () => {
  it('applies if / then / else', async () => {
    const schema = {
      type: 'object',
      if: { properties: { status: { const: 'shipped' } } },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, in a plain data object never awaited
      then: { required: ['carrier'] },
      else: { required: ['reason'] },
    };
    expect(await passes(schema, { status: 'shipped', carrier: 'UPS' })).toBe(true);
    expect(await judge(schema, { status: 'shipped' })).toEqual({
      passed: false,
      explanation:
        "the final response does not match the schema: (root): must have required property 'carrier'; (root): " +
        'must match "then" schema',
    });
    expect(await passes(schema, { status: 'pending', reason: 'stock' })).toBe(true);
    expect(await passes(schema, { status: 'pending' })).toBe(false);
  });

  it('applies not', async () => {
    const schema = { type: 'object', properties: { status: { not: { enum: ['lost', 'stolen'] } } } };
    expect(await passes(schema, { status: 'shipped' })).toBe(true);
    expect(await judge(schema, { status: 'lost' })).toEqual({
      passed: false,
      explanation: 'the final response does not match the schema: status: must NOT be valid',
    });
  });

  it('applies dependentSchemas and dependentRequired', async () => {
    const schema = {
      type: 'object',
      dependentSchemas: { refund: { required: ['amount'] } },
      dependentRequired: { amount: ['currency'] },
    };
    expect(await passes(schema, { status: 'ok' })).toBe(true);
    expect(await passes(schema, { refund: true, amount: 5, currency: 'EUR' })).toBe(true);
    expect(await passes(schema, { refund: true })).toBe(false);
    expect(await passes(schema, { refund: true, amount: 5 })).toBe(false);
  });

  it('applies unevaluatedProperties and unevaluatedItems across allOf and prefixItems', async () => {
    const object = {
      allOf: [{ properties: { id: { type: 'string' } } }],
      properties: { status: { type: 'string' } },
      unevaluatedProperties: false,
    };
    expect(await passes(object, { id: 'A-17', status: 'shipped' })).toBe(true);
    expect(await judge(object, { id: 'A-17', eta: 'Fri' })).toEqual({
      passed: false,
      explanation: 'the final response does not match the schema: (root): must NOT have unevaluated properties',
    });
    const list = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], unevaluatedItems: false };
    expect(await passes(list, ['A-17', 2])).toBe(true);
    expect(await passes(list, ['A-17', 2, 'extra'])).toBe(false);
  });

  it('checks formats and reports where in the reply the value is wrong', async () => {
    const schema = {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        at: { type: 'string', format: 'date-time' },
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
      },
    };
    expect(await passes(schema, { email: 'a@example.com', at: '2025-01-02T03:04:05Z' })).toBe(true);
    expect(await judge(schema, { email: 'nope', at: 'tomorrow', items: [{ sku: 1 }] })).toEqual({
      passed: false,
      explanation:
        'the final response does not match the schema: email: must match format "email"; at: must match format ' +
        '"date-time"; items[0].sku: must be string',
    });
  });
});

describe('json-schema drafts', () => {
  it('reads draft-07 by $schema: dependencies, tuple items and additionalItems', async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      dependencies: { refund: ['amount'] },
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false } },
    };
    expect(draftOf(schema)).toBe('draft-07');
    expect(schemaProblems(schema)).toEqual([]);
    expect(await passes(schema, { refund: true, amount: 1, pair: ['a', 1] })).toBe(true);
    expect(await passes(schema, { refund: true })).toBe(false);
    expect(await passes(schema, { pair: ['a', 1, 2] })).toBe(false);
  });

  it('reads 2019-09 and 2020-12 by $schema, over http or https, with or without #', () => {
    expect(draftOf({})).toBe('2020-12');
    expect(draftOf({ $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBe('2020-12');
    expect(draftOf({ $schema: 'https://json-schema.org/draft/2019-09/schema#' })).toBe('2019-09');
    expect(draftOf({ $schema: 'https://json-schema.org/draft-07/schema' })).toBe('draft-07');
    expect(draftOf({ $schema: 'http://json-schema.org/draft-04/schema#' })).toBeUndefined();
  });

  it('uses the draft the schema names: prefixItems is 2020-12 only', () => {
    // In draft-07, prefixItems is no keyword at all, so strict mode refuses it.
    expect(
      schemaProblems({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', prefixItems: [{}] }),
    ).toEqual([
      'schema: is not a valid JSON Schema: strict mode: unknown keyword: "prefixItems" (JSON Schema draft-07)',
    ]);
    expect(schemaProblems({ type: 'array', prefixItems: [{}] })).toEqual([]);
  });
});

describe('json-schema schemas are checked before they run', () => {
  it('reports an invalid schema where it is written, a misspelt keyword, a dangling $ref and an unknown draft', () => {
    expect(schemaProblems({ type: 'object', properties: { age: { type: 'integr', minimum: 'zero' } } })).toEqual([
      'schema.properties.age.type: must be equal to one of the allowed values (JSON Schema draft 2020-12)',
      'schema.properties.age.minimum: must be number (JSON Schema draft 2020-12)',
    ]);
    expect(schemaProblems({ type: 'string', minLenght: 2 })).toEqual([
      'schema: is not a valid JSON Schema: strict mode: unknown keyword: "minLenght" (JSON Schema draft 2020-12)',
    ]);
    expect(schemaProblems({ $ref: '#/$defs/missing' })).toEqual([
      expect.stringMatching(/^schema: is not a valid JSON Schema: can't resolve reference #\/\$defs\/missing/),
    ]);
    expect(schemaProblems({ type: 'string', format: 'colour' })).toEqual([
      expect.stringMatching(/^schema: is not a valid JSON Schema: unknown format "colour"/),
    ]);
    expect(schemaProblems({ $schema: 'http://json-schema.org/draft-04/schema#' })).toEqual([
      'schema["$schema"]: must name a supported draft (got "http://json-schema.org/draft-04/schema#"; supported: ' +
        'https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, ' +
        'http://json-schema.org/draft-07/schema#)',
    ]);
  });

  it('compiles each schema once (by its JSON text), so the evaluator runs what the check compiled', () => {
    const schema = { type: 'object', required: ['status'] };
    expect(schemaProblems(schema)).toEqual([]);
    expect(compileJsonSchema(structuredClone(schema))).toBe(compileJsonSchema(structuredClone(schema)));
  });

  it('lets two schemas use the same $id', async () => {
    const first = { $id: 'https://example.com/order', type: 'object', required: ['id'] };
    const second = { $id: 'https://example.com/order', type: 'object', required: ['status'] };
    expect([...schemaProblems(first), ...schemaProblems(second)]).toEqual([]);
    expect(await passes(first, { id: 'A-17' })).toBe(true);
    expect(await passes(second, { id: 'A-17' })).toBe(false);
  });
});
