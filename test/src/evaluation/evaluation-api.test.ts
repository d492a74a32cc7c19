/** The verdict builders, effects and config() getters of `evalon/evaluation`. */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  ConfigPropertyTypeError,
  configValues,
  defineEvaluator,
  effects,
  Evaluation,
  EvaluatorConfig,
  EvaluatorDefinitionError,
  InvalidEvaluationError,
  isEffect,
  MissingConfigPropertyError,
} from '../../../src/evaluation/index.ts';

describe('Evaluation', () => {
  it('builds the documented example verdict fluently', () => {
    const evaluation = Evaluation.passed('Response was accurate and helpful')
      .withScore(0.92)
      .withLabel('excellent')
      .withAttribute('model', 'gpt-4o');
    expect(evaluation.toJSON()).toEqual({
      passed: true,
      explanation: 'Response was accurate and helpful',
      score: 0.92,
      label: 'excellent',
      attributes: { model: 'gpt-4o' },
    });
  });

  it('has passed, failed and of', () => {
    expect(Evaluation.failed('no').passed).toBe(false);
    expect(Evaluation.of(3 >= 2, 'computed').passed).toBe(true);
    expect(Evaluation.of(false, 'x').toJSON()).toEqual({ passed: false, explanation: 'x', attributes: {} });
  });

  it('is immutable: with* returns a new evaluation', () => {
    const base = Evaluation.passed('ok');
    const scored = base.withScore(1);
    expect(base.score).toBeUndefined();
    expect(scored.score).toBe(1);
    expect(Object.isFrozen(scored)).toBe(true);
  });

  it('rejects bad values with InvalidEvaluationError', () => {
    expect(() => Evaluation.passed('x').withScore(Number.NaN)).toThrow(InvalidEvaluationError);
    expect(() => Evaluation.passed('x').withLabel('')).toThrow(/label must be a non-empty string/);
    expect(() => Evaluation.passed('x').withAttribute('k', {} as never)).toThrow(/the value of "k" must be a string/);
    expect(() => Evaluation.of('yes' as never, 'x')).toThrow(/passed must be a boolean/);
  });

  it('round-trips through its JSON shape', () => {
    const evaluation = Evaluation.failed('too short')
      .withScore(0.2)
      .withAttribute('length', 12)
      .withAttribute('strict', true);
    expect(Evaluation.fromData(evaluation.toJSON()).toJSON()).toEqual(evaluation.toJSON());
  });
});

describe('effects', () => {
  it('completes with an evaluation or is inconclusive with a reason, called or not', () => {
    expect(effects.complete(Evaluation.passed('ok'))).toMatchObject({ kind: 'complete' });
    expect(effects().inconclusive('no transcript')).toMatchObject({ kind: 'inconclusive', reason: 'no transcript' });
    expect(isEffect(effects.inconclusive('r'))).toBe(true);
    expect(isEffect({ kind: 'inconclusive', reason: 'r' })).toBe(false);
  });

  it('rejects a complete without an Evaluation and an inconclusive without a reason', () => {
    expect(() => effects.complete({ passed: true } as never)).toThrow(/expected an Evaluation/);
    expect(() => effects.inconclusive('')).toThrow(/reason must be a non-empty string/);
  });
});

describe('config() getters', () => {
  const config = new EvaluatorConfig(
    {
      'min-length': 20,
      ratio: 0.5,
      text: 'hi',
      strict: true,
      tools: ['a', 'b'],
      one: 'x',
      fromEnv: '42',
      flag: 'false',
      nested: { min: 3 },
      nothing: null,
    },
    'evaluator e',
  );

  it('reads each type', () => {
    expect(config.getInt('min-length')).toBe(20);
    expect(config.getNumber('ratio')).toBe(0.5);
    expect(config.getString('text')).toBe('hi');
    expect(config.getBoolean('strict')).toBe(true);
    expect(config.getStringList('tools')).toEqual(['a', 'b']);
    expect(config.getStringList('one')).toEqual(['x']);
    expect(config.getObject('nested')).toEqual({ min: 3 });
    expect(config.getInt('nested.min')).toBe(3);
  });

  it('reads numbers and booleans that ${env:…} expansion left as text', () => {
    expect(config.getInt('fromEnv')).toBe(42);
    expect(config.getNumber('fromEnv')).toBe(42);
    expect(config.getBoolean('flag')).toBe(false);
  });

  it('throws MissingConfigPropertyError for a missing (or null) key, naming it and where to set it', () => {
    expect(() => config.getInt('max-length')).toThrow(MissingConfigPropertyError);
    expect(() => config.getString('nothing')).toThrow(
      /evaluator e: config property "nothing" is not set \(set it on the evaluator entry or on the binding/,
    );
    expect(config.has('max-length')).toBe(false);
    expect(config.has('nothing')).toBe(false);
    expect(config.has('ratio')).toBe(true);
  });

  it('throws ConfigPropertyTypeError for a value of another type', () => {
    expect(() => config.getInt('ratio')).toThrow(ConfigPropertyTypeError);
    expect(() => config.getBoolean('text')).toThrow(/"text" must be a boolean \(got "hi"\)/);
    expect(() => config.getStringList('nested')).toThrow(/must be a list of strings/);
  });

  it('cannot be changed through what it returns', () => {
    const list = config.getStringList('tools');
    list.push('c');
    expect(config.getStringList('tools')).toEqual(['a', 'b']);
    expect(config.keys()).toContain('min-length');
  });
});

describe('defineEvaluator', () => {
  it('defaults the version to 1', () => {
    const definition = defineEvaluator({ id: 'x', create: () => ({ evaluate: () => effects.inconclusive('n/a') }) });
    expect(definition.version).toBe('1');
  });

  it('rejects a bad id, version, create or timeout', () => {
    expect(() => defineEvaluator({ id: 'Bad Id', create: () => ({}) as never })).toThrow(EvaluatorDefinitionError);
    expect(() => defineEvaluator({ id: 'x', version: '', create: () => ({}) as never })).toThrow(
      /version must be a non-empty string/,
    );
    expect(() => defineEvaluator({ id: 'x', create: 'no' as never })).toThrow(/create must be a function/);
    expect(() => defineEvaluator({ id: 'x', timeoutMs: 0, create: () => ({}) as never })).toThrow(
      /timeoutMs must be an integer/,
    );
    expect(() =>
      defineEvaluator({ id: 'x', properties: { 'min-length': 'int' } as never, create: () => ({}) as never }),
    ).toThrow('defineEvaluator(x): properties must be a zod schema');
  });

  it('keeps the properties schema on the definition', () => {
    const properties = z.object({ 'min-length': configValues.int({ min: 0 }) });
    const definition = defineEvaluator({
      id: 'x',
      properties,
      create: () => ({ evaluate: () => effects.inconclusive('n/a') }),
    });
    expect(definition.properties).toBe(properties);
    expect(defineEvaluator({ id: 'y', create: () => ({}) as never }).properties).toBeUndefined();
  });
});

describe('configValues', () => {
  // What each schema accepts is what the config() getter of the same kind reads.
  const getters = {
    string: [configValues.string(), (config: EvaluatorConfig) => config.getString('v')],
    int: [configValues.int(), (config: EvaluatorConfig) => config.getInt('v')],
    number: [configValues.number(), (config: EvaluatorConfig) => config.getNumber('v')],
    boolean: [configValues.boolean(), (config: EvaluatorConfig) => config.getBoolean('v')],
    stringList: [configValues.stringList(), (config: EvaluatorConfig) => config.getStringList('v')],
    mapping: [configValues.mapping(), (config: EvaluatorConfig) => config.getObject('v')],
  } as const;
  const values = [
    'text',
    '',
    ' 20 ',
    '-3',
    '2.5',
    'true',
    'false',
    20,
    2.5,
    -1,
    true,
    false,
    ['a', 'b'],
    [1],
    {},
    { a: 1 },
  ];

  it.each(Object.keys(getters))('%s accepts exactly what its getter reads', (kind) => {
    const [schema, get] = getters[kind as keyof typeof getters];
    for (const value of values) {
      let read = true;
      try {
        get(new EvaluatorConfig({ v: value }));
      } catch {
        read = false;
      }
      expect({ value, accepted: schema.safeParse(value).success }).toEqual({ value, accepted: read });
    }
  });

  it('words its problems as predicates and checks bounds and choices', () => {
    const message = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;
    expect(message(configValues.int({ min: 1 }), 0)).toBe('must be at least 1 (got 0)');
    expect(message(configValues.number({ max: 1 }), '1.5')).toBe('must be at most 1 (got 1.5)');
    expect(message(configValues.int(), 'many')).toBe('must be a whole number (got string "many")');
    expect(message(configValues.string({ nonEmpty: true }), ' ')).toBe('must not be empty');
    expect(message(configValues.stringList({ nonEmpty: true }), [])).toBe('must list at least one value');
    expect(message(configValues.oneOf(['all', 'any']), 'most')).toBe('must be one of "all", "any" (got string "most")');
    expect(configValues.oneOf(['all', 'any']).safeParse('any').success).toBe(true);
  });

  it('judges interactions unless it declares conversations too, and rejects subjects it does not know', () => {
    const create = () => ({ evaluate: () => effects.inconclusive('n/a') });
    expect(defineEvaluator({ id: 'x', create }).subjects).toEqual(['interaction']);
    expect(defineEvaluator({ id: 'x', subjects: ['conversation', 'interaction'], create }).subjects).toEqual([
      'conversation',
      'interaction',
    ]);
    expect(() => defineEvaluator({ id: 'x', subjects: [], create })).toThrow(
      "defineEvaluator(x): subjects must list what the evaluator can judge: 'interaction', 'conversation' or both " +
        '(got [])',
    );
    expect(() => defineEvaluator({ id: 'x', subjects: ['session' as never], create })).toThrow(/got \["session"\]/);
  });
});
