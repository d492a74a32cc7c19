/**
 * The six shipped scenarios run end to end through `evalon simulate` against the scripted model,
 * which plays the customers, the representatives, the in-process agent (with real tool calls on
 * the scenario's context) and the judge. Every run passes: tool requirements and expect_context
 * assertions are met by the scripted agent's tool calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSimulateCommand } from '../../collector/cli/simulate-command.ts';
import { startModel, type ModelFixture } from '../helpers/model-fixture.ts';
import { SHIPPED_SCRIPTS, shippedScenarioPlayer } from '../helpers/shipped-scenario-player.ts';

describe('the six shipped scenarios', () => {
  let model: ModelFixture;
  beforeAll(async () => {
    model = await startModel();
    model.scripted.respondWith(shippedScenarioPlayer());
  });
  afterAll(() => model.close());

  it('run end to end and pass, twice each, concurrently', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const files = Object.keys(SHIPPED_SCRIPTS).map((name) => `scenarios/${name}.yaml`);
    const env = { ANTHROPIC_BASE_URL: model.scripted.baseURL, ANTHROPIC_API_KEY: 'test-key', EVALON_MODEL: 'scripted' };
    const code = await runSimulateCommand(
      [...files, '--trials', '2', '--json', '--no-save', '--no-delay', '--concurrency', '6'],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      { env, color: false },
    );
    const summary = JSON.parse(out.join('\n'));
    const failures = summary.scenarios.flatMap(
      (s: {
        name: string;
        runs: Array<{ passed: boolean; error?: string; criteria?: Array<{ name: string; passed: boolean }> }>;
      }) =>
        s.runs
          .filter((r) => !r.passed)
          .map(
            (r) =>
              `${s.name}: ${
                r.error ??
                r.criteria
                  ?.filter((c) => !c.passed)
                  .map((c) => c.name)
                  .join(', ')
              }`,
          ),
    );
    expect(failures).toEqual([]);
    expect(code).toBe(0);
    expect(summary.scenarios.map((s: { name: string; passes: number }) => [s.name, s.passes])).toEqual(
      Object.keys(SHIPPED_SCRIPTS).map((name) => [name, 2]),
    );
  });
});
