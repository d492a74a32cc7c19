/** Binding configuration errors: reported at startup, all at once, with their YAML paths; and warnings. */
import { describe, expect, it } from 'vitest';
import { evaluationConfigFrom } from './helpers/evaluation-config.ts';

describe('binding configuration errors (reported at startup, all at once, with YAML paths)', () => {
  const problems = (yaml: string): string[] => {
    try {
      evaluationConfigFrom(yaml);
      return [];
    } catch (error) {
      return (error as { problems: { path: string; message: string }[] }).problems.map(
        (p) => `${p.path}: ${p.message}`,
      );
    }
  };

  it(
    'rejects sampling-ratio and trigger-on-failure on the evaluator entry, control-id on a binding, and a ratio ' +
      'out of range — together',
    () => {
      const found = problems(`
evaluators:
  e:
    sampling-ratio: 0.5
    trigger-on-failure: true
    agents:
      a: { control-id: QA-1, sampling-ratio: 1.5 }
`);
      expect(found).toHaveLength(4);
      expect(found.join('\n')).toMatch(
        /processors::evaluation::evaluators::e: sampling-ratio is not allowed on an evaluator entry/,
      );
      expect(found.join('\n')).toMatch(
        /processors::evaluation::evaluators::e: trigger-on-failure is not allowed on an evaluator entry/,
      );
      expect(found.join('\n')).toMatch(
        /processors::evaluation::evaluators::e::agents::a: control-id is not allowed on a binding/,
      );
      expect(found.join('\n')).toMatch(
        /processors::evaluation::evaluators::e::agents::a: sampling-ratio must be between 0 and 1/,
      );
    },
  );

  it('rejects a property under defaults (an evaluator property has no default)', () => {
    expect(
      problems(`
defaults:
  agent: { min-length: 20 }
evaluators: {}
`).join('\n'),
    ).toMatch(/defaults::agent.*min-length is not allowed under defaults/);
  });

  it('warns about a misspelled reserved key, which would otherwise be a property', () => {
    const { warnings, config } = evaluationConfigFrom(`
evaluators:
  e:
    agents:
      a: { trigger: interaction, sampling_ratio: 0.1 }
`);
    expect(warnings.join('\n')).toMatch(/sampling_ratio is not a reserved key.*did you mean "sampling-ratio"/);
    expect(config.evaluators.e.agents.a.properties).toEqual({ sampling_ratio: 0.1 });
  });
});
