import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runValidateCommand, type ValidationJson } from '../../../collector/cli/validate-command.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = join(root, 'test/fixtures/config');

async function run(configFiles: string[], options: { json?: boolean } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runValidateCommand(
    { configFiles, ...options },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  return { code, out, err };
}

const WARNING_CONFIG = [
  'receivers:',
  '  otlp:',
  'processors:',
  '  interactions:',
  '  evaluation:',
  `    modules: [${JSON.stringify(join(fixtures, 'modules/evaluators.ts'))}]`,
  '    evaluators:',
  '      interaction-quality-evaluator:',
  '        agents:',
  '          support-agent: { trigger: interaction, sampling_ratio: 0.1 }',
  'service:',
  '  pipelines:',
  '    traces: { receivers: [otlp], processors: [interactions, evaluation] }',
  '',
].join('\n');

describe('evalon validate', () => {
  it('prints OK with the number of evaluators and bindings, and exits 0', async () => {
    const files = [join(fixtures, 'merge/shared.yaml'), join(fixtures, 'merge/production.yaml')];
    expect(await run(files)).toEqual({
      code: 0,
      out: [`OK: ${files.join(', ')} (2 evaluators, 4 bindings, 1 module loaded)`],
      err: [],
    });
  });

  it('prints warnings before OK', async () => {
    // An evaluator without a properties schema: the misspelt reserved key is only a warning.
    const [file] = writeConfigFiles({
      'otel-config.yaml': [
        'receivers:',
        '  otlp:',
        'processors:',
        '  interactions:',
        '  evaluation:',
        `    modules: [${JSON.stringify(join(fixtures, 'modules/evaluators.ts'))}]`,
        '    evaluators:',
        '      interaction-quality-evaluator:',
        '        agents:',
        '          support-agent: { trigger: interaction, sampling_ratio: 0.1 }',
        'service:',
        '  pipelines:',
        '    traces: { receivers: [otlp], processors: [interactions, evaluation] }',
        '',
      ].join('\n'),
    });
    const result = await run([file!]);
    expect(result.code).toBe(0);
    expect(result.err).toEqual([
      expect.stringMatching(
        new RegExp(
          /^warning: .*otel-config\.yaml:10:50: /.source +
            /.*sampling_ratio is not a reserved key.*\(did you mean "sampling-ratio"\?\)$/.source,
        ),
      ),
    ]);
    expect(result.out).toEqual([`OK: ${file} (1 evaluator, 1 binding, 1 module loaded)`]);
  });

  it('prints every problem, one per line, and exits 2', async () => {
    const file = join(fixtures, 'bad/ledger-and-timing.yaml');
    const result = await run([file]);
    expect(result.code).toBe(2);
    expect(result.out).toEqual([]);
    expect(result.err).toEqual([
      `warning: ${file}:15:3: service: pipelines has no traces pipeline: the collector receives no spans`,
      'invalid configuration (5 problems):',
      `${file}:5:5: processors::interactions: settle must be shorter than decision_wait (settle 45000ms, ` +
        `decision_wait 30000ms)`,
      `${file}:7:5: processors::interactions: max_pending_traces must be at least 1 (got 0)`,
      `${file}:8:5: processors::interactions: conversation_idle must be a duration such as 500ms, 30s, 5m, ` +
        `1h30m or 7d, or a number of milliseconds (got string "a while")`,
      `${file}:10:5: processors::evaluation: concurrency must be at least 1 (got 0)`,
      `${file}:11:5: processors::evaluation: ledger sets both sqlite and postgres (choose one)`,
    ]);
  });

  it(
    'loads the evaluator modules as startup does: an unknown evaluator id and a module that fails to import are ' +
      'problems',
    async () => {
      const [file] = writeConfigFiles({
        'otel-config.yaml': [
          'receivers:',
          '  otlp:',
          'processors:',
          '  interactions:',
          '  evaluation:',
          '    modules: [ ./broken-evaluators.ts ]',
          '    evaluators:',
          '      reply-lenght:',
          '        agents:',
          '          support-agent: { trigger: interaction }',
          'service:',
          '  pipelines:',
          '    traces: { receivers: [otlp], processors: [interactions, evaluation] }',
          '',
        ].join('\n'),
        'broken-evaluators.ts': 'throw new Error("the module is broken");\n',
      });
      const result = await run([file!]);
      expect(result.code).toBe(2);
      expect(result.out).toEqual([]);
      expect(result.err[0]).toBe('invalid configuration (2 problems):');
      expect(result.err.slice(1)).toEqual([
        expect.stringMatching(
          new RegExp(
            /broken-evaluators\.ts.*processors::evaluation::modules\[0\]/.source +
              /.*cannot load the evaluator module: Error: the module is broken/.source,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            /processors::evaluation::evaluators::reply-lenght/.source +
              /.*no evaluator with id "reply-lenght".*did you mean "reply-length"\?/.source,
          ),
        ),
      ]);
    },
  );

  it('reports a binding on conversations whose evaluator judges interactions only, with its YAML path', async () => {
    const [file] = writeConfigFiles({
      'otel-config.yaml': [
        'receivers:',
        '  otlp:',
        'processors:',
        '  interactions:',
        '  evaluation:',
        `    modules: [ ${JSON.stringify(join(fixtures, 'modules/evaluators.ts'))} ]`,
        '    evaluators:',
        '      interaction-quality-evaluator:',
        '        agents:',
        '          support-agent: { trigger: conversation }',
        '      llm-judge:',
        '        rubric: Solves the problem.',
        '        agent-roles:',
        '          customer-facing: { trigger: conversation }',
        'service:',
        '  pipelines:',
        '    traces: { receivers: [otlp], processors: [interactions, evaluation] }',
        '',
      ].join('\n'),
    });
    const result = await run([file!]);
    expect(result.code).toBe(2);
    expect(result.err).toEqual([
      'invalid configuration (1 problem):',
      'processors::evaluation::evaluators::interaction-quality-evaluator::agents::support-agent: trigger ' +
        'conversation: evaluator "interaction-quality-evaluator" cannot judge a conversation (it judges ' +
        'interactions; use trigger: interaction, or an evaluator that judges conversations: contains, ' +
        'criteria-judge, human-review, json-schema, llm-judge, regex, reply-length, tool-call-required)',
    ]);
  });

  it('validates the shipped configuration', async () => {
    const result = await run([join(root, 'otel-config.yaml')]);
    expect(result).toMatchObject({ code: 0, err: [] });
  });

  it.each(readdirSync(join(fixtures, 'good')).filter((name) => name.endsWith('.yaml')))(
    'validates good/%s, its modules and evaluator properties included',
    async (name) => {
      const result = await run([join(fixtures, 'good', name)]);
      expect({ code: result.code, err: result.err }).toEqual({ code: 0, err: [] });
    },
  );
});

describe('evalon validate --json', () => {
  it('prints ok and the warnings as JSON on stdout, nothing on stderr, exit 0', async () => {
    const [file] = writeConfigFiles({ 'otel-config.yaml': WARNING_CONFIG });
    const result = await run([file!], { json: true });
    expect({ code: result.code, err: result.err, lines: result.out.length }).toEqual({ code: 0, err: [], lines: 1 });
    expect(JSON.parse(result.out[0]!)).toEqual({
      ok: true,
      problems: [
        {
          file,
          line: 10,
          column: 50,
          path: 'processors::evaluation::evaluators::interaction-quality-evaluator::agents::support-agent',
          message: expect.stringMatching(/^sampling_ratio is not a reserved key/),
          severity: 'warning',
          hint: 'did you mean "sampling-ratio"?',
        },
      ],
    });
  });

  it('lists every problem with its file, line, column and YAML path, exit 2', async () => {
    const file = join(fixtures, 'bad/ledger-and-timing.yaml');
    const result = await run([file], { json: true });
    expect({ code: result.code, err: result.err }).toEqual({ code: 2, err: [] });
    const { ok, problems } = JSON.parse(result.out.join('\n')) as ValidationJson;
    expect(ok).toBe(false);
    expect(problems).toEqual([
      {
        file,
        line: 15,
        column: 3,
        path: 'service',
        message: 'pipelines has no traces pipeline: the collector receives no spans',
        severity: 'warning',
      },
      {
        file,
        line: 5,
        column: 5,
        path: 'processors::interactions',
        message: 'settle must be shorter than decision_wait',
        severity: 'error',
        hint: 'settle 45000ms, decision_wait 30000ms',
      },
      {
        file,
        line: 7,
        column: 5,
        path: 'processors::interactions',
        message: 'max_pending_traces must be at least 1',
        severity: 'error',
        hint: 'got 0',
      },
      {
        file,
        line: 8,
        column: 5,
        path: 'processors::interactions',
        message:
          'conversation_idle must be a duration such as 500ms, 30s, 5m, 1h30m or 7d, or a number of milliseconds',
        severity: 'error',
        hint: 'got string "a while"',
      },
      {
        file,
        line: 10,
        column: 5,
        path: 'processors::evaluation',
        message: 'concurrency must be at least 1',
        severity: 'error',
        hint: 'got 0',
      },
      {
        file,
        line: 11,
        column: 5,
        path: 'processors::evaluation',
        message: 'ledger sets both sqlite and postgres',
        severity: 'error',
        hint: 'choose one',
      },
    ]);
  });

  it('reports an unreadable file with null line and column', async () => {
    const file = join(fixtures, 'bad/no-such-file.yaml');
    const result = await run([file], { json: true });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.out.join('\n'))).toEqual({
      ok: false,
      problems: [
        {
          file,
          line: null,
          column: null,
          path: '',
          message: 'cannot read the configuration file: file not found',
          severity: 'error',
        },
      ],
    });
  });

  it('answers through the real CLI: JSON on stdout that parses, exit 2 for problems and 0 for none', async () => {
    const exec = promisify(execFile);
    const main = join(root, 'collector/cli/main.ts');
    const bad = join(fixtures, 'bad/ledger-and-timing.yaml');
    const failed = await exec(process.execPath, [main, 'validate', '--json', '--config', bad]).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toBe('');
    const parsed = JSON.parse(failed!.stdout) as ValidationJson;
    expect(parsed.ok).toBe(false);
    expect(parsed.problems.filter((problem) => problem.severity === 'error').map((problem) => problem.path)).toEqual([
      'processors::interactions',
      'processors::interactions',
      'processors::interactions',
      'processors::evaluation',
      'processors::evaluation',
    ]);
    const good = await exec(process.execPath, [main, 'validate', '--json', '-c', join(root, 'otel-config.yaml')]);
    expect(JSON.parse(good.stdout)).toEqual({ ok: true, problems: [] });
  }, 30_000);
});

describe('evaluator properties, through the real CLI', () => {
  const yaml = [
    'receivers:',
    '  otlp:',
    '    protocols: { http: { endpoint: 127.0.0.1:0 } }',
    'processors:',
    '  interactions:',
    '  evaluation:',
    '    ledger: { sqlite: { path: ./ledger.db } }',
    '    evaluators:',
    '      regex:',
    '        agents:',
    '          support-agent: { trigger: interaction, pattern: "([" }',
    '          billing-agent: { trigger: interaction }',
    '      json-schema:',
    '        schema:',
    '          type: object',
    '          properties: { status: { enum: shipped } }',
    '        agents:',
    '          support-agent: { trigger: interaction }',
    'service:',
    '  pipelines:',
    '    traces: { receivers: [otlp], processors: [interactions, evaluation] }',
    '',
  ].join('\n');
  const expected = (file: string) => [
    `${file}:11:50: processors::evaluation::evaluators::regex::agents::support-agent: pattern: must be a valid ` +
      'regular expression: Unterminated character class (got "([")',
    `${file}:12:11: processors::evaluation::evaluators::regex::agents::billing-agent: pattern: is required (set it ` +
      'on the evaluator entry or on the binding)',
    `${file}:16:35: processors::evaluation::evaluators::json-schema: schema.properties.status.enum: must be array ` +
      '(JSON Schema draft 2020-12)',
  ];
  const exec = promisify(execFile);
  const cli = join(root, 'collector/cli/main.ts');
  const failure = (error: { code: number; stdout: string; stderr: string }) => error;

  it('reports a bad regex, a missing pattern and an invalid JSON Schema with their paths, exit 2', async () => {
    const [file] = writeConfigFiles({ 'otel-config.yaml': yaml });
    const result = await exec(process.execPath, [cli, 'validate', '--config', file!]).then(() => undefined, failure);
    expect({ code: result?.code, stdout: result?.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result!.stderr.trimEnd().split('\n')).toEqual(['invalid configuration (3 problems):', ...expected(file!)]);
    const json = await exec(process.execPath, [cli, 'validate', '--json', '--config', file!]).then(
      () => undefined,
      failure,
    );
    expect(json?.code).toBe(2);
    const parsed = JSON.parse(json!.stdout) as ValidationJson;
    expect(parsed.problems.map(({ path, message, hint }) => `${path}: ${message}${hint ? ` (${hint})` : ''}`)).toEqual(
      expected(file!).map((line) => line.slice(line.indexOf(': ') + 2)),
    );
  }, 30_000);

  it('the collector refuses to start with the same configuration, naming every problem, exit 2', async () => {
    const [file] = writeConfigFiles({ 'otel-config.yaml': yaml });
    const result = await exec(process.execPath, [cli, 'collector', '--config', file!]).then(() => undefined, failure);
    expect(result?.code).toBe(2);
    expect(result!.stderr.trimEnd().split('\n')).toEqual(['invalid configuration (3 problems):', ...expected(file!)]);
    expect(existsSync(join(dirname(file!), 'ledger.db'))).toBe(false);
  }, 30_000);
});
