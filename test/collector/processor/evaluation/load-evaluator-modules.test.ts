/**
 * Evaluator modules at startup: every problem at once, each naming the module file or the YAML
 * path — a module that fails to load, one without evaluators, a duplicate id, an unknown id.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILT_IN_EVALUATORS } from '../../../../collector/evaluators/index.ts';
import { ConfigError, formatConfigProblem, loadConfig } from '../../../../collector/config/index.ts';
import { loadEvaluatorRegistry } from '../../../../collector/processor/evaluation/load-evaluator-modules.ts';
import { spawnSync } from 'node:child_process';
import { main } from '../../../../collector/cli/main.ts';
import { testConfigYaml } from '../../../helpers/collector.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const api = pathToFileURL(join(import.meta.dirname, '../../../../src/evaluation/index.ts')).href;

function moduleFile(name: string, source: string): string {
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

const good = moduleFile(
  'good.ts',
  `import { defineEvaluator, effects, Evaluation } from '${api}';
export const politeness = defineEvaluator({
  id: 'politeness',
  create: () => ({ evaluate: () => effects.complete(Evaluation.passed('polite')) }),
});
export const all = [politeness];
export default politeness;`,
);
const syntaxError = moduleFile('syntax-error.ts', 'export const broken = ;\n');
const throwsAtImport = moduleFile('throws.ts', "throw new Error('missing API key for the judge');\n");
const exportsNothing = moduleFile('nothing.ts', 'export const answer = 42;\n');
const duplicate = moduleFile(
  'duplicate.ts',
  `import { defineEvaluator, effects } from '${api}';
export const mine = defineEvaluator({
  id: 'reply-length',
  create: () => ({ evaluate: () => effects.inconclusive('n/a') }),
});`,
);

async function problems(modules: string[], configuredIds: string[] = []): Promise<string[]> {
  try {
    await loadEvaluatorRegistry({ modules, builtIns: BUILT_IN_EVALUATORS, configuredIds });
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map(formatConfigProblem);
  }
}

describe('loading evaluator modules', () => {
  it('registers the built-ins and every definition a module exports, once each', async () => {
    const registry = await loadEvaluatorRegistry({
      modules: [good, good],
      builtIns: BUILT_IN_EVALUATORS,
      configuredIds: ['politeness', 'reply-length'],
    });
    expect(registry.ids()).toEqual([
      'contains',
      'criteria-judge',
      'human-review',
      'json-schema',
      'llm-judge',
      'politeness',
      'regex',
      'reply-length',
      'tool-call-required',
    ]);
    expect(registry.origin('politeness')).toBe(good);
    expect(registry.origin('regex')).toBe('built-in');
  });

  it('names the file of a module that fails to load, and why', async () => {
    const found = await problems([syntaxError, throwsAtImport]);
    expect(found).toHaveLength(2);
    // Under vitest the import goes through its transformer, so the error text differs from Node's.
    expect(found[0]).toMatch(
      new RegExp(
        `^${syntaxError}: processors::evaluation::modules\\[0\\]: cannot load the evaluator module: \\w*Error: `,
      ),
    );
    expect(found[1]).toBe(
      `${throwsAtImport}: processors::evaluation::modules[1]: cannot load the evaluator module: Error: missing ` +
        `API key for the judge`,
    );
  });

  it('names a module that exports no evaluator', async () => {
    expect(await problems([exportsNothing])).toEqual([
      `${exportsNothing}: processors::evaluation::modules[0]: exports no evaluator (exports: answer; export the ` +
        `result of defineEvaluator({ id, create }) from evalon/evaluation)`,
    ]);
  });

  it('names both places an id is defined twice', async () => {
    expect(await problems([duplicate])).toEqual([
      `${duplicate}: processors::evaluation::modules: evaluator id "reply-length" is defined twice: by built-in ` +
        `and by ${duplicate} (ids must be unique; rename one)`,
    ]);
  });

  it('reports a configured evaluator that nothing defines, with a suggestion', async () => {
    expect(await problems([good], ['politenes', 'quality-evaluator'])).toEqual([
      'processors::evaluation::evaluators::politenes: no evaluator with id "politenes" is defined by a built-in ' +
        'or by a module in processors::evaluation::modules (did you mean "politeness"?)',
      'processors::evaluation::evaluators::quality-evaluator: no evaluator with id "quality-evaluator" is ' +
        'defined by a built-in or by a module in processors::evaluation::modules (known evaluators: contains, ' +
        'criteria-judge, human-review, json-schema, llm-judge, politeness, regex, reply-length, tool-call-required)',
    ]);
  });

  it('reports every problem at once', async () => {
    expect(await problems([syntaxError, exportsNothing, duplicate], ['unknown'])).toHaveLength(4);
  });
});

describe('the collector at startup', () => {
  it('stops with exit code 2 and one line per problem, naming the module file', async () => {
    const configFile = join(dir, 'bad-modules.yaml');
    writeFileSync(
      configFile,
      testConfigYaml(dir).replace(
        '  evaluation:\n',
        `  evaluation:\n    modules: [ ./throws.ts ]\n    evaluators:\n      quality: { agents: { support-agent: ` +
          `{} } }\n`,
      ),
    );
    expect(loadConfig([configFile]).config.processors.evaluation.modules).toEqual([throwsAtImport]);
    const errors: string[] = [];
    const code = await main(['collector', '--config', configFile], { out: () => {}, err: (line) => errors.push(line) });
    expect(code).toBe(2);
    expect(errors.join('\n')).toContain(
      `${throwsAtImport}: processors::evaluation::modules[0]: cannot load the evaluator module: Error: missing ` +
        `API key for the judge`,
    );
    expect(errors.join('\n')).toContain('processors::evaluation::evaluators::quality: no evaluator with id "quality"');
  });

  it('refuses to start with an interaction-only evaluator bound on conversations, naming the binding', async () => {
    const configFile = join(dir, 'conversation-binding.yaml');
    writeFileSync(
      configFile,
      testConfigYaml(dir).replace(
        '  evaluation:\n',
        '  evaluation:\n    modules: [ ./good.ts ]\n    evaluators:\n      politeness:\n        agents:\n' +
          '          support-agent: { trigger: interaction }\n        agent-roles:\n' +
          '          customer-facing: { trigger: conversation }\n',
      ),
    );
    const errors: string[] = [];
    const code = await main(['collector', '--config', configFile], { out: () => {}, err: (line) => errors.push(line) });
    expect(code).toBe(2);
    expect(errors.join('\n').split('\n')).toEqual([
      'invalid configuration (1 problem):',
      'processors::evaluation::evaluators::politeness::agent-roles::customer-facing: trigger conversation: ' +
        'evaluator "politeness" cannot judge a conversation (it judges interactions; use trigger: interaction, or ' +
        'an evaluator that judges conversations: contains, criteria-judge, human-review, json-schema, llm-judge, ' +
        'regex, reply-length, tool-call-required)',
    ]);
  });

  it('names the file and Node’s own error for a module with a syntax error (the real CLI)', () => {
    const configFile = join(dir, 'syntax.yaml');
    writeFileSync(
      configFile,
      testConfigYaml(dir).replace('  evaluation:\n', '  evaluation:\n    modules: [ ./syntax-error.ts ]\n'),
    );
    const cli = join(import.meta.dirname, '../../../../collector/cli/main.ts');
    const run = spawnSync(process.execPath, [cli, 'collector', '--config', configFile], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      `${syntaxError}: processors::evaluation::modules[0]: cannot load the evaluator module: SyntaxError: `,
    );
  });
});

describe('the shipped otel-config.yaml', () => {
  it('loads its evaluator modules and defines every evaluator it binds', async () => {
    const { config } = loadConfig([join(import.meta.dirname, '../../../../otel-config.yaml')], { env: {} });
    const evaluation = config.processors.evaluation;
    const registry = await loadEvaluatorRegistry({
      modules: evaluation.modules,
      builtIns: BUILT_IN_EVALUATORS,
      configuredIds: Object.keys(evaluation.evaluators),
    });
    expect(Object.keys(evaluation.evaluators).every((id) => registry.get(id))).toBe(true);
    expect(registry.ids()).toContain('interaction-quality-evaluator');
  });
});
