import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runValidateCommand } from '../../../collector/cli/validate-command.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = join(root, 'test/fixtures/config');

async function run(configFiles: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runValidateCommand(
    { configFiles },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  return { code, out, err };
}

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
    const [file] = writeConfigFiles({
      'otel-config.yaml': [
        'receivers:',
        '  otlp:',
        'processors:',
        '  interactions:',
        '  evaluation:',
        '    evaluators:',
        '      reply-length:',
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
          /^warning: .*otel-config\.yaml:9:50: /.source +
            /.*sampling_ratio is not a reserved key.*\(did you mean "sampling-ratio"\?\)$/.source,
        ),
      ),
    ]);
    expect(result.out).toEqual([`OK: ${file} (1 evaluator, 1 binding)`]);
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
        'criteria-judge, json-schema, llm-judge, regex, reply-length, tool-call-required)',
    ]);
  });

  it('validates the shipped configuration', async () => {
    const result = await run([join(root, 'otel-config.yaml')]);
    expect(result).toMatchObject({ code: 0, err: [] });
  });
});
