import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { describeValue } from '../../../src/config/describe-value.ts';
import { forbidden, strictObject, unknownKeyOf } from '../../../src/config/strict-object.ts';

describe('strict mappings', () => {
  const schema = strictObject(
    { max_turns: z.number().optional(), name: z.string().optional(), trigger: forbidden('belongs on a binding') },
    { expected: 'a scenario mapping' },
  );

  it('reports each unknown key on the mapping, naming the closest known key, with the key in its params', () => {
    const result = schema.safeParse({ max_turn: 3, colour: 'red' });
    expect(result.success).toBe(false);
    const issues = result.error!.issues;
    expect(issues.map((issue) => [issue.path, issue.message])).toEqual([
      [[], 'unknown key "max_turn" (did you mean "max_turns"?)'],
      [[], 'unknown key "colour" (known keys: max_turns, name)'],
    ]);
    expect(unknownKeyOf(issues[0]!)).toMatchObject({
      kind: 'unknown-key',
      key: 'max_turn',
      known: ['max_turns', 'name'],
    });
  });

  it('reports unknown keys together with the problems of known keys', () => {
    const issues = schema.safeParse({ name: 5, nmae: 'x' }).error!.issues;
    expect(issues.map((issue) => issue.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('expected string'), 'unknown key "nmae" (did you mean "name"?)']),
    );
  });

  it('says where a forbidden key belongs and never suggests it', () => {
    const issues = schema.safeParse({ trigger: 'interaction', triger: 1 }).error!.issues;
    expect(issues.map((issue) => issue.message)).toEqual([
      'belongs on a binding',
      'unknown key "triger" (known keys: max_turns, name)',
    ]);
  });

  it('words a value that is not a mapping as expected, got', () => {
    expect(schema.safeParse(['a']).error!.issues[0]!.message).toBe('expected a scenario mapping, got a list');
  });
});

describe('describeValue', () => {
  it('describes values bare, for "(got …)", or with an article, for "expected …, got …"', () => {
    expect(describeValue('x')).toBe('string "x"');
    expect(describeValue(2)).toBe('number 2');
    expect(describeValue('x', 'article')).toBe('a string ("x")');
    expect(describeValue(true, 'article')).toBe('a boolean (true)');
    for (const wording of ['bare', 'article'] as const) {
      expect(describeValue(null, wording)).toBe('an empty value');
      expect(describeValue(undefined, wording)).toBe('nothing');
      expect(describeValue([], wording)).toBe('a list');
      expect(describeValue({}, wording)).toBe('a mapping');
    }
    expect(describeValue('y'.repeat(100))).toBe(`string "${'y'.repeat(57)}..."`);
  });
});
