import { describe, expect, it } from 'vitest';
import { formatConfigProblem, placeFindings, splitHint } from '../../../src/config/config-problem.ts';
import { formatDottedPath, splitPath } from '../../../src/config/yaml-path.ts';
import { locate, parseYamlSource } from '../../../src/config/yaml-source.ts';

const text = [
  'defaults: &defaults { weight: heavy }',
  'participants:',
  '  agent: { type: evalated }',
  'criteria:',
  '  - { <<: *defaults, name: a }',
  '',
].join('\n');

describe('YAML positions', () => {
  const { source, syntaxErrors } = parseYamlSource(text, 'x.yaml');

  it('places a path at its key or at its value', () => {
    expect(syntaxErrors).toEqual([]);
    expect(locate([source], ['participants', 'agent', 'type'])).toEqual({ file: 'x.yaml', line: 3, column: 12 });
    expect(locate([source], ['participants', 'agent', 'type'], 'value')).toEqual({
      file: 'x.yaml',
      line: 3,
      column: 18,
    });
  });

  it('follows << merge keys to the text that wrote the value', () => {
    expect(locate([source], ['criteria', 0, 'weight'], 'value')).toEqual({ file: 'x.yaml', line: 1, column: 31 });
  });

  it('points a missing key at the nearest enclosing one, and a missing top-level value at the document', () => {
    expect(locate([source], ['participants', 'agent', 'goal'])).toMatchObject({ line: 3, column: 3 });
    expect(locate([source], ['description'])).toEqual({ file: 'x.yaml' });
    expect(locate([source], ['description'], 'value')).toEqual({ file: 'x.yaml', line: 1, column: 1 });
  });

  it('reports syntax errors with their position', () => {
    const broken = parseYamlSource('a: [\n', 'broken.yaml');
    expect(broken.syntaxErrors[0]).toMatchObject({ line: 2, column: 1 });
  });
});

describe('problems', () => {
  const { source } = parseYamlSource(text, 'x.yaml');

  it('places findings in the file, sorted as written, duplicates dropped', () => {
    const placed = placeFindings(
      [
        { at: ['criteria', 0, 'weight'], message: 'weight must be a number', point: 'value' },
        { at: ['participants', 'agent', 'type'], message: 'type is wrong' },
        { at: ['participants', 'agent', 'type'], message: 'type is wrong' },
      ],
      [source],
    );
    expect(placed.map(({ line, column, message }) => [line, column, message])).toEqual([
      [1, 31, 'weight must be a number'],
      [3, 12, 'type is wrong'],
    ]);
  });

  it('prints file:line:column: path: message, leaving out what is unknown', () => {
    expect(formatConfigProblem({ file: 'x.yaml', line: 3, column: 12, path: 'a::b', message: 'c is wrong' })).toBe(
      'x.yaml:3:12: a::b: c is wrong',
    );
    expect(formatConfigProblem({ file: 'x.yaml', path: '', message: 'cannot read' })).toBe('x.yaml: cannot read');
  });

  it('prints paths as the collector configuration and scenario files write them', () => {
    expect(splitPath(['service', 'pipelines', 'traces', 'processors', 1])).toEqual({
      where: 'service::pipelines::traces',
      subject: 'processors[1]',
    });
    expect(formatDottedPath(['eval_criteria', 2, 'weight'])).toBe('eval_criteria[2].weight');
    expect(formatDottedPath(['context', 'a.b'])).toBe('context["a.b"]');
  });
});

describe('splitHint', () => {
  it('splits the parenthesised remark that ends a message from what is wrong', () => {
    expect(splitHint('unknown key "x" (did you mean "y"?)')).toEqual({
      message: 'unknown key "x"',
      hint: 'did you mean "y"?',
    });
    expect(splitHint('min-length: must be at least 0 (got -1)')).toEqual({
      message: 'min-length: must be at least 0',
      hint: 'got -1',
    });
    expect(splitHint('a (b (c))')).toEqual({ message: 'a', hint: 'b (c)' });
  });

  it('does not count parentheses inside quoted text', () => {
    expect(splitHint('pattern: must be a valid regular expression (got "([")')).toEqual({
      message: 'pattern: must be a valid regular expression',
      hint: 'got "(["',
    });
    expect(splitHint('names "a (b)"')).toEqual({ message: 'names "a (b)"' });
  });

  it('leaves a message without a final remark as it is', () => {
    expect(splitHint('is required')).toEqual({ message: 'is required' });
    expect(splitHint('a (b) c')).toEqual({ message: 'a (b) c' });
    expect(splitHint('(only a remark)')).toEqual({ message: '(only a remark)' });
    expect(splitHint('a (b) c)')).toEqual({ message: 'a (b) c)' });
    expect(splitHint('a (b')).toEqual({ message: 'a (b' });
  });
});
