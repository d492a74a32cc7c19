/**
 * Every built-in evaluator declares the properties it takes, so a bad or missing one is a
 * configuration problem (startup, `evalon validate`), not an error outcome on every interaction.
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_EVALUATORS } from '../../../collector/evaluators/index.ts';
import { JUDGE_PROPERTIES } from '../../../collector/evaluators/judge-properties.ts';
import { checkEvaluatorProperties } from '../../../collector/processor/evaluation/property-checks.ts';

/** The problems of an entry of `id` written with `properties` (no bindings: the entry alone). */
function problems(id: string, properties: Record<string, unknown>): string[] {
  return checkEvaluatorProperties({
    evaluators: { [id]: { properties, raw: properties, agents: {}, agentRoles: {} } },
    definitionOf: (candidate) => BUILT_IN_EVALUATORS.find((definition) => definition.id === candidate),
  }).map((problem) => problem.message);
}

const MISSING = 'is required (set it on the evaluator entry or on the binding)';

it('declares a properties schema for every built-in', () => {
  expect(BUILT_IN_EVALUATORS.filter((definition) => definition.properties === undefined)).toEqual([]);
});

describe('reply-length', () => {
  it('takes min-length (a whole number from 0) and max-length (at least min-length)', () => {
    expect(problems('reply-length', { 'min-length': 20, 'max-length': 200 })).toEqual([]);
    expect(problems('reply-length', {})).toEqual([`min-length: ${MISSING}`]);
    expect(problems('reply-length', { 'min-length': -1 })).toEqual(['min-length: must be at least 0 (got -1)']);
    expect(problems('reply-length', { 'min-length': 2.5 })).toEqual([
      'min-length: must be a whole number (got number 2.5)',
    ]);
    expect(problems('reply-length', { 'min-length': 'ten' })).toEqual([
      'min-length: must be a whole number (got string "ten")',
    ]);
    expect(problems('reply-length', { 'min-length': 20, 'max-length': 5 })).toEqual([
      'max-length: must be at least min-length (got 5 < 20)',
    ]);
  });
});

describe('tool-call-required', () => {
  it('takes tools (a name or a list of at least one), match all|any and require-success', () => {
    expect(problems('tool-call-required', { tools: 'get_order', match: 'any', 'require-success': true })).toEqual([]);
    expect(problems('tool-call-required', { tools: ['a', 'b'] })).toEqual([]);
    expect(problems('tool-call-required', {})).toEqual([`tools: ${MISSING}`]);
    expect(problems('tool-call-required', { tools: [], match: 'none', 'require-success': 'yes' })).toEqual([
      'tools: must list at least one value',
      'match: must be one of "all", "any" (got string "none")',
      'require-success: must be true or false (got string "yes")',
    ]);
    expect(problems('tool-call-required', { tools: [1] })).toEqual([expect.stringMatching(/^tools\[0\]: /)]);
  });
});

describe('contains', () => {
  it('takes values, match all|any|none, case-sensitive and target', () => {
    expect(
      problems('contains', { values: ['order'], match: 'none', 'case-sensitive': false, target: 'transcript' }),
    ).toEqual([]);
    expect(problems('contains', { match: 'some', target: 'reply' })).toEqual([
      `values: ${MISSING}`,
      'match: must be one of "all", "any", "none" (got string "some")',
      'target: must be one of "final-response", "transcript" (got string "reply")',
    ]);
  });
});

describe('regex', () => {
  it('compiles pattern with flags, so a pattern that cannot run is a problem', () => {
    expect(problems('regex', { pattern: '\\bA-\\d+', flags: 'ig', 'must-match': false, target: 'transcript' })).toEqual(
      [],
    );
    expect(problems('regex', {})).toEqual([`pattern: ${MISSING}`]);
    expect(problems('regex', { pattern: '([' })).toEqual([
      'pattern: must be a valid regular expression: Unterminated character class (got "([")',
    ]);
    expect(problems('regex', { pattern: 'a', flags: 'ii' })).toEqual([
      'flags: must be regular expression flags, each once, of d, g, i, m, s, u, v, y (got "ii")',
    ]);
    // Valid only with the u flag.
    expect(problems('regex', { pattern: '\\p{L}+', flags: 'u' })).toEqual([]);
    expect(problems('regex', { pattern: '\\p{L', flags: 'u' })).toEqual([
      expect.stringMatching(/^pattern: must be a valid regular expression: .* \(got "\\\\p\{L"\)$/),
    ]);
  });
});

describe('json-schema', () => {
  it('takes schema (compiled as a JSON Schema) and allow-code-fence', () => {
    expect(problems('json-schema', { schema: { type: 'object' }, 'allow-code-fence': false })).toEqual([]);
    expect(problems('json-schema', {})).toEqual([`schema: ${MISSING}`]);
    expect(problems('json-schema', { schema: 'object' })).toEqual(['schema: must be a mapping (got string "object")']);
    expect(problems('json-schema', { schema: { properties: { age: { type: 'integr' } } } })).toEqual([
      'schema.properties.age.type: must be equal to one of the allowed values (JSON Schema draft 2020-12)',
    ]);
  });
});

describe('llm-judge', () => {
  it('takes rubric or prompt_template (one is required), model and pass_threshold from 0 to 1', () => {
    expect(problems('llm-judge', { rubric: 'Answers the question', model: 'claude-x', pass_threshold: 0.7 })).toEqual(
      [],
    );
    expect(problems('llm-judge', { prompt_template: 'Judge it.' })).toEqual([]);
    expect(problems('llm-judge', { 'prompt-template': 'Judge it.', 'pass-threshold': '0.5' })).toEqual([]);
    expect(problems('llm-judge', { rubric: '  ' })).toEqual([
      'rubric: is required, or prompt_template (set one on the evaluator entry or on the binding)',
    ]);
    expect(problems('llm-judge', { rubric: 'r', pass_threshold: 1.5 })).toEqual([
      'pass_threshold: must be at most 1 (got 1.5)',
    ]);
    expect(problems('llm-judge', { rubric: 'r', prompt_template: 'a', 'prompt-template': 'b' })).toEqual([
      'prompt-template: is the same property as prompt_template: set one of them',
    ]);
    expect(problems('llm-judge', { rubric: 'r', critera: [] })).toEqual([
      'critera: is not a property of llm-judge (known properties: model, prompt_template, prompt-template, ' +
        'max_input_tokens, max-input-tokens, rubric, pass_threshold, pass-threshold)',
    ]);
  });

  it('takes max_input_tokens, a whole number of at least 1,000, in one spelling', () => {
    expect(problems('llm-judge', { rubric: 'r', max_input_tokens: 50_000 })).toEqual([]);
    expect(problems('criteria-judge', { criteria: ['Polite'], 'max-input-tokens': '8000' })).toEqual([]);
    expect(problems('llm-judge', { rubric: 'r', max_input_tokens: 10 })).toEqual([
      'max_input_tokens: must be at least 1000 (got 10)',
    ]);
    expect(problems('llm-judge', { rubric: 'r', max_input_tokens: 5000, 'max-input-tokens': 6000 })).toEqual([
      'max-input-tokens: is the same property as max_input_tokens: set one of them',
    ]);
  });
});

describe('criteria-judge', () => {
  it('takes criteria exactly as a scenario eval_criteria, prompt_template and model', () => {
    expect(
      problems('criteria-judge', {
        criteria: [
          'The agent is polite',
          { name: 'looked-up', description: 'Looked it up', require_tool_call: 'get_order', weight: 2 },
          { name: 'tone', description: 'Warm', criterion_type: 'scored', pass_threshold: 0.7 },
        ],
        prompt_template: 'Judge one criterion.',
        model: 'claude-x',
      }),
    ).toEqual([]);
    expect(problems('criteria-judge', {})).toEqual([`criteria: ${MISSING}`]);
    expect(problems('criteria-judge', { criteria: [] })).toEqual(['criteria: must list at least one criterion']);
    expect(
      problems('criteria-judge', {
        criteria: [{ criterion: 'x', weight: 'heavy' }, { name: 'a' }, { name: 'a', criterion_type: 'graded' }],
      }),
    ).toEqual([
      'criteria[0].weight: expected a number, got a string ("heavy")',
      'criteria[0].criterion: is not a known key (known keys: name, description, criterion_type, require_tool_call, ' +
        'weight, pass_threshold)',
      'criteria[2].criterion_type: unknown criterion type "graded" (expected binary, scored or rubric; ordinal is ' +
        'read as rubric)',
    ]);
  });

  it('shares the judges’ common properties with llm-judge, in one place', () => {
    for (const id of ['llm-judge', 'criteria-judge'])
      for (const key of Object.keys(JUDGE_PROPERTIES))
        expect(problems(id, { [key]: 'x' }).join('\n'), `${id} ${key}`).not.toMatch(`${key}: is not a property`);
  });
});
