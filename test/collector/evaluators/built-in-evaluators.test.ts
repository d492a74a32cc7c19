/**
 * The built-in evaluators (docs/evaluators.md, "Built-in evaluators"), each run through the test
 * kit as the collector runs it.
 */
import { describe, expect, it } from 'vitest';
import { Subject } from '../../../src/evaluation/index.ts';
import { EvaluatorTestKit, TestLedgerClient, testInteractionRecord } from '../../../src/testing/index.ts';
import {
  BUILT_IN_EVALUATORS,
  containsEvaluator,
  jsonSchemaEvaluator,
  regexEvaluator,
  replyLengthEvaluator,
  toolCallRequiredEvaluator,
} from '../../../collector/evaluators/index.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { EvaluatorDefinition } from '../../../src/evaluation/evaluator.ts';

async function run(
  definition: EvaluatorDefinition,
  config: Record<string, unknown>,
  overrides: Partial<InteractionRecord> = {},
) {
  const record = testInteractionRecord(overrides);
  const ledger = TestLedgerClient.create().seed(record);
  return EvaluatorTestKit.of(definition)
    .withLedger(ledger)
    .withConfig(config)
    .evaluate(Subject.interaction(record.interactionId, record.agentId));
}

it('registers reply-length, tool-call-required, json-schema, contains, regex, the two judges and human-review', () => {
  expect(BUILT_IN_EVALUATORS.map((d) => d.id)).toEqual([
    'reply-length',
    'tool-call-required',
    'json-schema',
    'contains',
    'regex',
    'llm-judge',
    'criteria-judge',
    'human-review',
  ]);
});

describe('reply-length', () => {
  it('passes a reply of at least min-length characters and fails a shorter one', async () => {
    const long = await run(
      replyLengthEvaluator,
      { 'min-length': 20 },
      { finalResponseText: 'Your order has shipped today.' },
    );
    expect(long.getEvaluation().toJSON()).toEqual({
      passed: true,
      explanation: 'reply of 29 characters, minimum 20',
      attributes: { length: 29 },
    });
    const short = await run(replyLengthEvaluator, { 'min-length': 50 }, { finalResponseText: 'Shipped.' });
    expect(short.getEvaluation().passed).toBe(false);
  });

  it('counts characters, not UTF-16 units, and honours max-length', async () => {
    const emoji = await run(
      replyLengthEvaluator,
      { 'min-length': 3, 'max-length': 3 },
      { finalResponseText: '👍👍👍' },
    );
    expect(emoji.getEvaluation().explanation).toBe('reply of 3 characters, between 3 and 3');
    expect(emoji.getEvaluation().passed).toBe(true);
  });

  it('fails the evaluation without min-length', async () => {
    expect((await run(replyLengthEvaluator, {})).getFailureMessage()).toMatch(/"min-length" is not set/);
  });
});

describe('tool-call-required', () => {
  const toolCalls = [
    { name: 'lookup_order', callId: 'c1', arguments: { order: 'A-17' }, result: { status: 'shipped' } },
    { name: 'refund', callId: 'c2', error: 'not allowed' },
  ];

  it('passes when every named tool was called, and names the missing ones otherwise', async () => {
    expect(
      (await run(toolCallRequiredEvaluator, { tools: ['lookup_order'] }, { toolCalls })).getEvaluation().passed,
    ).toBe(true);
    const missing = await run(toolCallRequiredEvaluator, { tools: ['lookup_order', 'escalate'] }, { toolCalls });
    expect(missing.getEvaluation().toJSON()).toMatchObject({
      passed: false,
      explanation: 'called lookup_order; not called: escalate (all required)',
      score: 0.5,
    });
  });

  it('with match: any, passes when one was called', async () => {
    expect(
      (
        await run(toolCallRequiredEvaluator, { tools: ['escalate', 'refund'], match: 'any' }, { toolCalls })
      ).getEvaluation().passed,
    ).toBe(true);
  });

  it('with require-success, a call that ended in an error does not count', async () => {
    const result = await run(toolCallRequiredEvaluator, { tools: 'refund', 'require-success': true }, { toolCalls });
    expect(result.getEvaluation().toJSON()).toMatchObject({
      passed: false,
      explanation: 'called none of the required tools; not called successfully: refund (all required)',
    });
  });

  it('fails the evaluation for an unknown match', async () => {
    expect(
      (await run(toolCallRequiredEvaluator, { tools: 'a', match: 'most' }, { toolCalls })).getFailureMessage(),
    ).toMatch(/"match" must be one of all, any/);
  });
});

describe('json-schema', () => {
  const schema = {
    type: 'object',
    properties: { status: { type: 'string', enum: ['shipped', 'pending'] }, eta: { type: 'string' } },
    required: ['status'],
  };

  it('passes JSON that validates, also inside a code fence', async () => {
    expect(
      (await run(jsonSchemaEvaluator, { schema }, { finalResponseText: '{"status":"shipped"}' })).getEvaluation()
        .passed,
    ).toBe(true);
    expect(
      (
        await run(
          jsonSchemaEvaluator,
          { schema },
          { finalResponseText: '```json\n{"status":"pending","eta":"Fri"}\n```' },
        )
      ).getEvaluation().passed,
    ).toBe(true);
  });

  it('fails JSON that does not validate, naming the path', async () => {
    const result = await run(jsonSchemaEvaluator, { schema }, { finalResponseText: '{"status":"lost"}' });
    expect(result.getEvaluation().passed).toBe(false);
    expect(result.getEvaluation().explanation).toMatch(/does not match the schema: status: /);
  });

  it('fails a reply that is not JSON, or empty', async () => {
    expect(
      (await run(jsonSchemaEvaluator, { schema }, { finalResponseText: 'It shipped.' })).getEvaluation().explanation,
    ).toMatch(/is not JSON/);
    expect((await run(jsonSchemaEvaluator, { schema }, { finalResponseText: '' })).getEvaluation().explanation).toMatch(
      /is empty/,
    );
  });

  it('fails the evaluation for a schema it cannot use', async () => {
    expect(
      (await run(jsonSchemaEvaluator, { schema: { type: 'nope' } }, { finalResponseText: '{}' })).getFailureMessage(),
    ).toMatch(/"schema" is not a JSON Schema/);
  });
});

describe('contains', () => {
  const finalResponseText = 'Your order A-17 has SHIPPED.';

  it('passes when all values appear, ignoring case by default', async () => {
    expect(
      (await run(containsEvaluator, { values: ['a-17', 'shipped'] }, { finalResponseText })).getEvaluation().passed,
    ).toBe(true);
    expect(
      (
        await run(containsEvaluator, { values: ['shipped'], 'case-sensitive': true }, { finalResponseText })
      ).getEvaluation().passed,
    ).toBe(false);
  });

  it('supports any and none', async () => {
    expect(
      (
        await run(containsEvaluator, { values: ['refund', 'shipped'], match: 'any' }, { finalResponseText })
      ).getEvaluation().passed,
    ).toBe(true);
    const none = await run(
      containsEvaluator,
      { values: ['password', 'shipped'], match: 'none' },
      { finalResponseText },
    );
    expect(none.getEvaluation().toJSON()).toMatchObject({
      passed: false,
      explanation: 'the final response contains "shipped" (none required)',
    });
  });

  it('can check the whole transcript', async () => {
    expect(
      (
        await run(containsEvaluator, { values: 'where is my order', target: 'transcript' }, { finalResponseText })
      ).getEvaluation().passed,
    ).toBe(true);
  });
});

describe('regex', () => {
  it('passes when the pattern matches, with flags, and records the match', async () => {
    const result = await run(
      regexEvaluator,
      { pattern: 'order [a-z]-\\d+', flags: 'i' },
      { finalResponseText: 'Your Order A-17 shipped' },
    );
    expect(result.getEvaluation().toJSON()).toMatchObject({ passed: true, attributes: { match: 'Order A-17' } });
  });

  it('with must-match: false, fails when the pattern matches', async () => {
    const result = await run(
      regexEvaluator,
      { pattern: '\\b\\d{16}\\b', 'must-match': false },
      { finalResponseText: 'card 4111111111111111' },
    );
    expect(result.getEvaluation().passed).toBe(false);
  });

  it('fails the evaluation for an invalid pattern', async () => {
    expect((await run(regexEvaluator, { pattern: '(' })).getFailureMessage()).toMatch(
      /"pattern" is not a valid regular expression/,
    );
  });
});
