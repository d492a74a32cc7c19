/**
 * Evaluator entries and property schemas together: `version`, `shadow` and `budget` are reserved
 * keys, so no built-in's strict schema takes them for properties, on an entry or a binding; an
 * entry `type/name` has its properties checked against its type's schema, with its own YAML path.
 */
import { describe, expect, it } from 'vitest';
import { runValidateCommand } from '../../../../collector/cli/validate-command.ts';
import { MINIMAL_PIPELINE, writeConfigFiles } from '../../../helpers/config-files.ts';

async function validate(evaluators: string) {
  const [file] = writeConfigFiles({
    'otel-config.yaml':
      'processors:\n  interactions:\n  evaluation:\n    evaluators:\n' + `${evaluators}${MINIMAL_PIPELINE}`,
  });
  const out: string[] = [];
  const err: string[] = [];
  const code = await runValidateCommand(
    { configFiles: [file!] },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  return { code, out, err, file: file! };
}

const PATH = 'processors::evaluation::evaluators';

describe('evaluator entries with property schemas', () => {
  it('validates version, shadow and budget on every built-in, on entries and bindings, with no warning', async () => {
    const { code, out, err, file } = await validate(`      llm-judge/strict:
        rubric: The agent answers the question.
        version: "2"
        shadow: false
        budget: { tokens: 200000, per: 1h }
        agents:
          support-agent: { budget: { tokens: 5000, per: 30m } }
      llm-judge/candidate:
        prompt_template: Judge the interaction.
        version: 3
        shadow: true
        agents:
          support-agent: {}
      criteria-judge:
        criteria: [The agent names the order.]
        budget: { tokens: 100000, per: 1d }
        agent-roles:
          customer-facing: { budget: { tokens: 1000, per: 10m } }
      reply-length/short:
        min-length: 1
        version: v7
        shadow: true
        agents:
          support-agent: { max-length: 200, budget: { tokens: 10, per: 1m } }
      regex:
        pattern: order
        budget: { tokens: 1, per: 1s }
        agents:
          support-agent: {}
      contains:
        values: [order]
        shadow: true
        agents:
          support-agent: {}
      json-schema:
        schema: { type: object }
        version: "1.1"
        agents:
          support-agent: {}
      tool-call-required:
        tools: [lookup_order]
        budget: { tokens: 50, per: 5m }
        agents:
          support-agent: { budget: { tokens: 5, per: 5m } }
`);
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out).toEqual([`OK: ${file} (8 evaluators, 8 bindings)`]);
  });

  it("checks an entry type/name against its type's schema, each problem at that entry's path", async () => {
    const { code, err, file } = await validate(`      reply-length/short:
        min_length: 3
        agents:
          support-agent: {}
      llm-judge/strict:
        version: "2"
        agents:
          support-agent: {}
      regex/ids:
        pattern: "[A-Z]-[0-9]+"
        budgets: { tokens: 10, per: 1h }
`);
    expect(code).toBe(2);
    // The misspelt reserved key is a warning of the configuration, and an error of the strict schema.
    expect(err[0]).toBe(
      `warning: ${file}:15:9: ${PATH}::regex/ids: budgets is not a reserved key, so it is passed to the evaluator ` +
        'as a property (did you mean "budget"?)',
    );
    expect(err[1]).toBe('invalid configuration (4 problems):');
    expect(err.slice(2).sort()).toEqual(
      [
        `${file}:6:9: ${PATH}::reply-length/short: min_length: is not a property of reply-length/short ` +
          '(did you mean "min-length"?)',
        `${file}:8:11: ${PATH}::reply-length/short::agents::support-agent: min-length: is required (set it on the ` +
          'evaluator entry or on the binding)',
        `${file}:12:11: ${PATH}::llm-judge/strict::agents::support-agent: rubric: is required, or prompt_template ` +
          '(set one on the evaluator entry or on the binding)',
        `${file}:15:9: ${PATH}::regex/ids: budgets: is not a property of regex/ids ` +
          '(did you mean the reserved key "budget"?)',
      ].sort(),
    );
  });
});
