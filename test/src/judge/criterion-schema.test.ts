import { describe, expect, it } from 'vitest';
import { criteriaSchema } from '../../../src/judge/criterion-schema.ts';

describe('criterion schema', () => {
  it('reads a string as a binary criterion without tool requirement and weight 1', () => {
    expect(criteriaSchema.parse(['Agent was polite'])).toEqual([
      {
        name: 'Agent was polite',
        description: 'Agent was polite',
        criterionType: 'binary',
        requireToolCall: false,
        weight: 1,
      },
    ]);
  });

  it('reads the object form, trimming and lowercasing the type and accepting ordinal as rubric', () => {
    expect(
      criteriaSchema.parse([
        {
          name: 'r',
          description: 'd',
          criterion_type: ' ORDINAL ',
          require_tool_call: true,
          weight: 2,
          pass_threshold: 0.7,
        },
      ]),
    ).toEqual([
      { name: 'r', description: 'd', criterionType: 'rubric', requireToolCall: true, weight: 2, passThreshold: 0.7 },
    ]);
  });

  it('rejects unknown types, bad thresholds, unknown keys and duplicate names with their paths', () => {
    const result = criteriaSchema.safeParse([
      { name: 'a', criterion_type: 'likert' },
      { name: 'b', pass_threshold: 2 },
      { name: 'c', wieght: 2 },
      'a',
    ]);
    expect(result.success).toBe(false);
    const issues = result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        '0.criterion_type: unknown criterion type "likert" (expected binary, scored or rubric; ordinal is read ' +
          'as rubric)',
        '1.pass_threshold: expected a threshold between 0 and 1',
        '2: unknown key "wieght" (did you mean "weight"?)',
      ]),
    );
  });

  it('rejects duplicate criterion names', () => {
    const result = criteriaSchema.safeParse(['same', { name: 'same', description: 'x' }]);
    expect(result.error!.issues[0].message).toContain('duplicate criterion name "same"');
  });
});
