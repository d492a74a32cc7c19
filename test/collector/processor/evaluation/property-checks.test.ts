/**
 * Evaluator properties are checked before anything runs: each binding's effective properties (the
 * binding's over the entry's, key by key) against the evaluator's `properties` schema, every
 * problem at once with its file, line and YAML path.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ConfigError, formatConfigProblem, loadConfig } from '../../../../collector/config/index.ts';
import { BUILT_IN_EVALUATORS } from '../../../../collector/evaluators/index.ts';
import { loadEvaluatorRegistry } from '../../../../collector/processor/evaluation/load-evaluator-modules.ts';
import { checkEvaluatorProperties } from '../../../../collector/processor/evaluation/property-checks.ts';
import { configValues } from '../../../../src/evaluation/config-values.ts';
import { defineEvaluator } from '../../../../src/evaluation/evaluator.ts';
import { effects } from '../../../../src/evaluation/effect.ts';
import { Evaluation } from '../../../../src/evaluation/evaluation.ts';
import { MINIMAL_PIPELINE, writeConfigFiles } from '../../../helpers/config-files.ts';

const EVALUATORS = 'processors::evaluation::evaluators';

/** The evaluators block (indented under `evaluators:`), loaded and checked as validate does. */
async function check(evaluators: string, options: { module?: string } = {}): Promise<string[]> {
  const [file] = writeConfigFiles({
    'otel-config.yaml': [
      'processors:',
      '  interactions:',
      '  evaluation:',
      ...(options.module ? ['    modules: [ ./evaluators.ts ]'] : []),
      '    evaluators:',
      evaluators,
      MINIMAL_PIPELINE,
    ].join('\n'),
  });
  if (options.module) writeFileSync(join(dirname(file!), 'evaluators.ts'), options.module);
  const { config, locate } = loadConfig([file!], { env: {} });
  const evaluation = config.processors.evaluation;
  try {
    await loadEvaluatorRegistry({
      modules: evaluation.modules,
      builtIns: BUILT_IN_EVALUATORS,
      configuredIds: Object.keys(evaluation.evaluators),
      evaluators: evaluation.evaluators,
      locate,
    });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Lines without the temporary directory, which differs each run.
    return error.problems.map((problem) => formatConfigProblem({ ...problem, file: 'otel-config.yaml' }));
  }
}

/** The evaluator API's entry, as an evaluator module imports it. */
const EVALUATION_ENTRY = join(import.meta.dirname, '../../../../src/evaluation/index.ts');

describe('evaluator property checks', () => {
  it('reports a bad value written on a binding at that binding, with its line', async () => {
    expect(
      await check(
        [
          '      regex:',
          '        pattern: shipped',
          '        agents:',
          '          support-agent: { trigger: interaction, pattern: "([" }',
          '          billing-agent: { trigger: interaction }',
        ].join('\n'),
      ),
    ).toEqual([
      `otel-config.yaml:8:50: ${EVALUATORS}::regex::agents::support-agent: pattern: must be a valid regular ` +
        'expression: Unterminated character class (got "([")',
    ]);
  });

  it('reports a bad value written on the entry once, at the entry, whatever the number of bindings', async () => {
    expect(
      await check(
        [
          '      regex:',
          '        pattern: "(unclosed"',
          '        agents:',
          '          support-agent: { trigger: interaction }',
          '          billing-agent: { trigger: interaction }',
          '        agent-roles:',
          '          "*": { trigger: interaction }',
        ].join('\n'),
      ),
    ).toEqual([
      `otel-config.yaml:6:9: ${EVALUATORS}::regex: pattern: must be a valid regular expression: Unterminated group ` +
        '(got "(unclosed")',
    ]);
  });

  it('reports a missing property at each binding that lacks it, and none where a binding supplies it', async () => {
    expect(
      await check(
        [
          '      regex:',
          '        agents:',
          '          support-agent: { trigger: interaction }',
          '          billing-agent: { trigger: interaction, pattern: refund }',
          '        agent-roles:',
          '          customer-facing: { trigger: interaction }',
        ].join('\n'),
      ),
    ).toEqual([
      `otel-config.yaml:7:11: ${EVALUATORS}::regex::agents::support-agent: pattern: is required (set it on the ` +
        'evaluator entry or on the binding)',
      `otel-config.yaml:10:11: ${EVALUATORS}::regex::agent-roles::customer-facing: pattern: is required (set it on ` +
        'the evaluator entry or on the binding)',
    ]);
  });

  it('reads a key set to nothing on a binding as not set, as the config() getters do', async () => {
    expect(
      await check(
        [
          '      regex:',
          '        pattern: shipped',
          '        agents:',
          '          support-agent: { trigger: interaction, pattern: }',
        ].join('\n'),
      ),
    ).toEqual([
      `otel-config.yaml:8:50: ${EVALUATORS}::regex::agents::support-agent: pattern: is required (set it on the ` +
        'evaluator entry or on the binding)',
    ]);
  });

  it('reports a problem that only the merge makes at the binding, not at the entry', async () => {
    expect(
      await check(
        [
          '      reply-length:',
          '        min-length: 20',
          '        agents:',
          '          support-agent: { trigger: interaction }',
          '          billing-agent: { trigger: interaction, max-length: 10 }',
        ].join('\n'),
      ),
    ).toEqual([
      `otel-config.yaml:9:50: ${EVALUATORS}::reply-length::agents::billing-agent: max-length: must be at least ` +
        'min-length (got 10 < 20)',
    ]);
  });

  it('names an unknown property with the property or the reserved key it is closest to', async () => {
    expect(
      await check(
        [
          '      reply-length:',
          '        min_length: 20',
          '        agents:',
          '          support-agent: { trigger: interaction, min-length: 5, sampling_ratio: 0.5, colour: red }',
        ].join('\n'),
      ),
    ).toEqual([
      `otel-config.yaml:6:9: ${EVALUATORS}::reply-length: min_length: is not a property of reply-length (did you ` +
        'mean "min-length"?)',
      `otel-config.yaml:8:65: ${EVALUATORS}::reply-length::agents::support-agent: sampling_ratio: is not a ` +
        'property of reply-length (did you mean the reserved key "sampling-ratio"?)',
      `otel-config.yaml:8:86: ${EVALUATORS}::reply-length::agents::support-agent: colour: is not a property of ` +
        'reply-length (known properties: min-length, max-length)',
    ]);
  });

  it('accepts what the getters accept: numeric text, true/false text, a single string for a list', async () => {
    expect(
      await check(
        [
          '      reply-length:',
          '        min-length: "20"',
          '        agents: { support-agent: { trigger: interaction } }',
          '      contains:',
          '        values: order',
          '        case-sensitive: "true"',
          '        agents: { support-agent: { trigger: interaction } }',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('checks an entry without bindings on its own', async () => {
    expect(await check(['      tool-call-required:', '        tools: []', '        match: every'].join('\n'))).toEqual([
      `otel-config.yaml:6:9: ${EVALUATORS}::tool-call-required: tools: must list at least one value`,
      `otel-config.yaml:7:9: ${EVALUATORS}::tool-call-required: match: must be one of "all", "any" (got string ` +
        '"every")',
    ]);
  });

  it('checks a module evaluator with its own schema, and leaves one without a schema to run time', async () => {
    const module = [
      "import * as z from 'zod';",
      `import { defineEvaluator, effects, Evaluation } from ${JSON.stringify(EVALUATION_ENTRY)};`,
      'const create = () => ({ evaluate: () => effects.complete(Evaluation.passed("ok")) });',
      'export const strict = defineEvaluator({',
      "  id: 'politeness',",
      "  properties: z.object({ tone: z.enum(['warm', 'formal'], { message: 'must be warm or formal' }) }),",
      '  create,',
      '});',
      "export const lax = defineEvaluator({ id: 'anything-goes', create });",
      '',
    ].join('\n');
    expect(
      await check(
        [
          '      politeness:',
          '        tone: rude',
          '        agents: { support-agent: { trigger: interaction } }',
          '      anything-goes:',
          '        whatever: 1',
          '        agents: { support-agent: { trigger: interaction } }',
        ].join('\n'),
        { module },
      ),
    ).toEqual([`otel-config.yaml:7:9: ${EVALUATORS}::politeness: tone: must be warm or formal`]);
  });

  it('reports every problem of every evaluator at once', async () => {
    const problems = await check(
      [
        '      regex:',
        '        agents: { support-agent: { trigger: interaction } }',
        '      reply-length:',
        '        min-length: -1',
        '        agents: { support-agent: { trigger: interaction } }',
        '      json-schema:',
        '        schema: { type: objekt }',
        '        agents: { support-agent: { trigger: interaction } }',
        '      llm-judge:',
        '        agents: { support-agent: { trigger: interaction } }',
        '      criteria-judge:',
        '        criteria: []',
        '        agents: { support-agent: { trigger: interaction } }',
      ].join('\n'),
    );
    expect(problems.map((line) => line.split(': ').slice(1, 3).join(': '))).toEqual([
      `${EVALUATORS}::regex::agents::support-agent: pattern`,
      `${EVALUATORS}::reply-length: min-length`,
      `${EVALUATORS}::json-schema: schema.type`,
      `${EVALUATORS}::llm-judge::agents::support-agent: rubric`,
      `${EVALUATORS}::criteria-judge: criteria`,
    ]);
  });

  it('reports a schema that throws as a problem of its evaluator, and works without a locator', () => {
    const throwing = defineEvaluator({
      id: 'throwing',
      properties: z.object({}).superRefine(() => {
        throw new Error('refinement bug');
      }),
      create: () => ({ evaluate: () => effects.complete(Evaluation.passed('ok')) }),
    });
    const counted = defineEvaluator({
      id: 'counted',
      properties: z.object({ count: configValues.int({ min: 1 }) }),
      create: () => ({ evaluate: () => effects.complete(Evaluation.passed('ok')) }),
    });
    const entry = (properties: Record<string, unknown>) => ({
      properties,
      raw: properties,
      agents: {},
      agentRoles: {},
    });
    expect(
      checkEvaluatorProperties({
        evaluators: { throwing: entry({}), counted: entry({ count: 'many' }) },
        definitionOf: (id) => [throwing, counted].find((definition) => definition.id === id),
      }),
    ).toEqual([
      {
        path: `${EVALUATORS}::throwing`,
        message: 'the properties schema of evaluator throwing failed: refinement bug',
      },
      { path: `${EVALUATORS}::counted`, message: 'count: must be a whole number (got string "many")' },
    ]);
  });
});
