/**
 * Evaluator entries named `type/name`, with `version`, `shadow` and `budget`: bad input is a
 * configuration error naming the file, line and YAML path, all problems at once, as `evalon
 * validate` (and startup) reports them. Good input loads into the entry's settings.
 */
import { describe, expect, it } from 'vitest';
import { runValidateCommand } from '../../../../collector/cli/validate-command.ts';
import { loadConfig } from '../../../../collector/config/index.ts';
import { MINIMAL_PIPELINE, writeConfigFiles } from '../../../helpers/config-files.ts';

async function validate(evaluators: string, override?: string) {
  const files = writeConfigFiles({
    'otel-config.yaml':
      'processors:\n  interactions:\n  evaluation:\n    evaluators:\n' + `${evaluators}${MINIMAL_PIPELINE}`,
    ...(override !== undefined ? { 'override.yaml': override } : {}),
  });
  const out: string[] = [];
  const err: string[] = [];
  const code = await runValidateCommand(
    { configFiles: files },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  return { code, out, err: err.join('\n'), files };
}

const PATH = 'processors::evaluation::evaluators';

describe('evaluator entry errors', () => {
  it('reports a budget without per, non-positive tokens and per: lots, with their YAML paths, together', async () => {
    const { code, err } = await validate(`      llm-judge/strict:
        rubric: r
        budget: { tokens: 1000 }
        agents:
          support-agent: { budget: { tokens: 0, per: lots } }
      llm-judge/lenient:
        rubric: r
        budget: { tokens: -5, per: 1h, window: 2h }
`);
    expect(code).toBe(2);
    expect(err).toMatch(/^invalid configuration \(5 problems\):/);
    expect(err).toMatch(
      new RegExp(
        `otel-config.yaml:7:\\d+: ${PATH}::llm-judge/strict::budget: per is required ` +
          '\\(the sliding window the tokens are counted over, such as 1h\\)',
      ),
    );
    expect(err).toContain(
      `${PATH}::llm-judge/strict::agents::support-agent::budget: tokens must be at least 1 (got 0)`,
    );
    expect(err).toContain(
      `${PATH}::llm-judge/strict::agents::support-agent::budget: ` +
        'per must be a duration such as 500ms, 30s, 5m, 1h30m ' +
        'or 7d, or a number of milliseconds (got string "lots")',
    );
    expect(err).toContain(`${PATH}::llm-judge/lenient::budget: tokens must be at least 1 (got -5)`);
    expect(err).toContain(`${PATH}::llm-judge/lenient::budget: window is not a known key (allowed: tokens, per)`);
  });

  it('reports an unknown type before the "/" with a "did you mean"', async () => {
    const { code, err } = await validate(`      llm-jduge/strict:
        rubric: r
        agents: { support-agent: {} }
`);
    expect(code).toBe(2);
    expect(err).toContain(
      `${PATH}::llm-jduge/strict: the entry's type (before "/"): no evaluator with id "llm-jduge" is defined by a ` +
        'built-in or by a module in processors::evaluation::modules (did you mean "llm-judge"?)',
    );
  });

  it('reports two entry ids that differ only in case as one id twice, and a malformed name', async () => {
    const { code, err } = await validate(`      llm-judge/strict:
        rubric: r
      llm-judge/Strict:
        rubric: r
      llm-judge/:
        rubric: r
      llm-judge/a b:
        rubric: r
`);
    expect(code).toBe(2);
    expect(err).toMatch(
      new RegExp(
        `otel-config.yaml:7:7: ${PATH}: llm-judge/Strict is the same entry id as "llm-judge/strict" \\(entry ids ` +
          'that differ only in case are one id; rename one\\)',
      ),
    );
    expect(err).toContain(
      `${PATH}: llm-judge/ has an empty name after "/" (write llm-judge alone, or llm-judge/<name>)`,
    );
    expect(err).toContain(`${PATH}: llm-judge/a b has the name "a b", which is not letters, digits`);
  });

  it('merges the same key in two files (an override), which is not a duplicate', async () => {
    const { code, out } = await validate(
      `      llm-judge/strict:
        rubric: r
        agents: { support-agent: {} }
`,
      'processors:\n  evaluation:\n    evaluators:\n      llm-judge/strict:\n        version: "2"\n',
    );
    expect(code).toBe(0);
    expect(out[0]).toMatch(/\(1 evaluator, 1 binding\)$/);
  });

  it('rejects shadow and version on a binding, saying they belong on the entry', async () => {
    const { code, err } = await validate(`      llm-judge/candidate:
        rubric: r
        agents:
          support-agent: { shadow: true, version: "2" }
`);
    expect(code).toBe(2);
    expect(err).toContain(
      `${PATH}::llm-judge/candidate::agents::support-agent: shadow is not allowed on a binding (set it on the ` +
        'evaluator entry; for a shadow on some agents, add an entry of the same type with its own name, such as ' +
        'llm-judge/candidate)',
    );
    expect(err).toContain(
      `${PATH}::llm-judge/candidate::agents::support-agent: version is not allowed on a binding (set it on the ` +
        'evaluator entry: all its bindings share one version)',
    );
  });

  it('rejects a shadow that is not a boolean and an empty version', async () => {
    const { code, err } = await validate(`      llm-judge:
        shadow: yes please
        version: ""
`);
    expect(code).toBe(2);
    expect(err).toContain(`${PATH}::llm-judge: shadow must be true or false (got string "yes please")`);
    expect(err).toContain(`${PATH}::llm-judge: version must be a non-empty string such as "2" (got string "")`);
  });
});

describe('evaluator entry settings', () => {
  it('loads type/name entries with version (a number as text), shadow and budgets in milliseconds', () => {
    const [file] = writeConfigFiles({
      'otel-config.yaml': `processors:
  interactions:
  evaluation:
    evaluators:
      llm-judge/strict: { rubric: r, budget: { tokens: 200000, per: 1h } }
      llm-judge/candidate:
        rubric: r
        shadow: true
        version: 2
        agents:
          support-agent: { budget: { tokens: 5000, per: 30m } }
${MINIMAL_PIPELINE}`,
    });
    const { evaluators } = loadConfig([file]).config.processors.evaluation;
    expect(evaluators['llm-judge/strict']).toMatchObject({ budget: { tokens: 200_000, perMs: 3_600_000 } });
    expect(evaluators['llm-judge/strict'].shadow).toBeUndefined();
    expect(evaluators['llm-judge/candidate']).toMatchObject({ shadow: true, version: '2' });
    expect(evaluators['llm-judge/candidate'].agents['support-agent']).toMatchObject({
      budget: { tokens: 5000, perMs: 1_800_000 },
      properties: {},
    });
    expect(evaluators['llm-judge/candidate'].properties).toEqual({ rubric: 'r' });
  });
});
