import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../collector/config/index.ts';
import { writeConfigFiles } from '../../helpers/config-files.ts';

function load(entryLines: string[]) {
  const [file] = writeConfigFiles({
    'otel-config.yaml': [
      'receivers:',
      '  otlp:',
      'processors:',
      '  interactions:',
      '  evaluation:',
      '    evaluators:',
      '      reply-length:',
      ...entryLines.map((line) => `        ${line}`),
      'service:',
      '  pipelines:',
      '    traces: { receivers: [otlp], processors: [interactions, evaluation] }',
      '',
    ].join('\n'),
  });
  const { config, warnings } = loadConfig([file!], { env: {} });
  return { config, warnings: warnings.map((warning) => warning.slice(file!.length + 1)) };
}

function warningsFor(entryLines: string[]): string[] {
  return load(entryLines).warnings;
}

describe('misspelled reserved keys', () => {
  it(
    'warns about a binding key that looks like a reserved ' + 'key, naming the right one, and keeps it as a property',
    () => {
      const { config, warnings } = load([
        'agents:',
        '  support-agent: { trigger: interaction, sampling_ratio: 0.1, samplingRatio: 0.2, enable: false, ' +
          'trigger_on_failure: true }',
      ]);
      const binding = config.processors.evaluation.evaluators['reply-length']!.agents['support-agent']!;
      expect(binding.samplingRatio).toBeUndefined();
      expect(binding.properties).toEqual({
        sampling_ratio: 0.1,
        samplingRatio: 0.2,
        enable: false,
        trigger_on_failure: true,
      });
      const where = 'processors::evaluation::evaluators::reply-length::agents::support-agent';
      expect(warnings).toEqual([
        `9:50: ${where}: sampling_ratio is not a reserved key, so it is passed to the evaluator as a property (did ` +
          `you mean "sampling-ratio"?)`,
        `9:71: ${where}: samplingRatio is not a reserved key, so it is passed to the evaluator as a property (did ` +
          `you mean "sampling-ratio"?)`,
        `9:91: ${where}: enable is not a reserved key, so it is passed to the evaluator as a property (did you ` +
          `mean "enabled"?)`,
        `9:106: ${where}: trigger_on_failure is not a reserved key, so it is passed to the evaluator as a property ` +
          `(did you mean "trigger-on-failure"?)`,
      ]);
    },
  );

  it('warns on an entry too, and says where a binding-only key belongs', () => {
    const warnings = warningsFor([
      'controlId: QA-1',
      'agent_roles:',
      '  customer-facing: { trigger: interaction }',
      'sampling_ratio: 0.5',
      'disabled: true',
    ]);
    expect(warnings.map((warning) => warning.replace(/^\d+:\d+: [^ ]+ /, ''))).toEqual([
      'controlId is not a reserved key, so it is passed to the evaluator as a property (did you mean "control-id"?)',
      'agent_roles is not a reserved key, so it is passed to the evaluator as a property (did you mean "agent-roles"?)',
      'sampling_ratio is not a reserved key, so it is passed to the evaluator as a property (did you mean ' +
        '"sampling-ratio"? It belongs on a binding or under defaults::agent.)',
      'disabled is not a reserved key, so it is passed to the evaluator as a property (did you mean "enabled"?)',
    ]);
  });

  it('says nothing about ordinary properties', () => {
    expect(
      warningsFor([
        'min-length: 20',
        'model: claude-haiku-4-5',
        'criteria: []',
        'agents:',
        '  a: { trigger: interaction, min-length: 50, control: x }',
      ]),
    ).toEqual([]);
  });
});
