import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSimulateCommand } from '../../../collector/cli/simulate-command.ts';
import { isRolePlay, lastUserText, startModel, withFaults, type ModelFixture } from '../../helpers/model-fixture.ts';

interface Captured {
  out: string[];
  err: string[];
  code: number;
}

describe('evalon simulate', () => {
  let model: ModelFixture;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    model = await startModel();
  });
  afterAll(() => model.close());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evalon-simulate-'));
    env = { ANTHROPIC_BASE_URL: model.scripted.baseURL, ANTHROPIC_API_KEY: 'test-key', EVALON_MODEL: 'scripted' };
    model.scripted.reset();
    // A polite customer who ends once the agent has answered; an agent that answers; a judge that passes.
    model.route({
      participant: (request) =>
        lastUserText(request).includes('[agent]')
          ? 'Thanks, that solves it. [END]'
          : 'My card ending 4532 was declined.',
      agent: () => 'I have activated your card.',
    });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function run(args: string[], options: Parameters<typeof runSimulateCommand>[2] = {}): Promise<Captured> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runSimulateCommand(
      args,
      { out: (line) => out.push(line), err: (line) => err.push(line) },
      { env, color: false, ...options },
    );
    return { out, err, code };
  }

  it('prints help', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.out.join('\n')).toContain('Usage: evalon simulate <scenario.yaml>...');
  });

  it.each([
    [[], 'evalon simulate: no scenario file given'],
    [['x.yaml', '--trails', '2'], "evalon simulate: Unknown option '--trails'"],
    [['x.yaml', '--trials', '0'], 'evalon simulate: --trials: expected a whole number of at least 1, got "0"'],
    [['x.yaml', '--record', 'a', '--replay', 'b'], 'evalon simulate: --record and --replay: use one or the other'],
    [
      ['x.yaml', '--timeout', 'soon'],
      'evalon simulate: --timeout: expected a duration such as 500ms, 30s, 5m, 1h30m or 7d, or a number of ' +
        'milliseconds, got "soon"',
    ],
    [['missing.yaml'], 'missing.yaml: cannot read the scenario file (ENOENT)'],
  ])('exits 2 with one clear line for bad input %j', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.err[0]).toContain(message);
    expect(result.err.join('\n')).not.toContain('    at ');
  });

  it('exits 2 naming the file, line and YAML path of a bad scenario', async () => {
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'name: bad\ndescription: d\nparticipants:\n  agent: { type: evaluted }\nconversations: []\n');
    const result = await run([file]);
    expect(result.code).toBe(2);
    expect(result.err[0]).toBe(
      `${file}:4:18: participants.agent.type: expected simulated, evaluated, custom or scripted, got a string ` +
        '("evaluted")',
    );
  });

  it('exits 2 when no API key is set and nothing is replayed', async () => {
    env = { ANTHROPIC_BASE_URL: model.scripted.baseURL };
    const result = await run(['scenarios/payment_activation.yaml', '--out', dir]);
    expect(result.code).toBe(2);
    expect(result.err).toEqual([
      'ANTHROPIC_API_KEY: not set (export it, or replay a recorded run offline with --replay DIR)',
    ]);
  });

  it('prints a single run live, judges it and saves the dataset entry', async () => {
    const result = await run(['scenarios/payment_activation.yaml', '--out', dir]);
    expect(result.err).toEqual([]);
    const out = result.out.join('\n');
    expect(out).toContain('Running scenario: payment_activation\nConversations: support_chat\nCriteria: 4');
    expect(out).toContain('=== Transcript ===');
    expect(out).toMatch(/👤 END_USER\s+\| My card ending 4532 was declined\./);
    expect(out).toMatch(/🤖 AGENT\s+\| I have activated your card\./);
    expect(out).toContain('=== Evaluation ===');
    // The agent called no tool: the tool criteria and the context assertion fail, so the run fails.
    expect(out).toContain('[FAIL] Agent verified the customer');
    expect(out).toContain('Result: FAIL');
    expect(result.code).toBe(1);
    const files = await readdir(join(dir, 'payment_activation'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^payment_activation_\d{8}T\d{6}Z\.json$/);
    expect(out).toContain(`✓ Transcript saved to: ${join(dir, 'payment_activation', files[0])}`);
    const saved = JSON.parse(await readFile(join(dir, 'payment_activation', files[0]), 'utf8'));
    expect(Object.keys(saved)).toEqual(expect.arrayContaining(['plan', 'transcript', 'evaluation']));
    expect(saved.transcript[0]).toEqual({
      conversation: 'support_chat',
      type: 'message',
      sender: 'end_user',
      content: 'My card ending 4532 was declined.',
    });
    expect(saved.evaluation).toMatchObject({ scenario_name: 'payment_activation', passed: false });
  });

  it('exits 0 when every run passes, with pass^k per scenario in the JSON summary', async () => {
    model.route({
      participant: (request) => (lastUserText(request).includes('[agent]') ? 'Thanks. [END]' : 'Rebook me please.'),
      agent: () => 'Done.',
      judge: () => '{"passed": true, "score": 1, "reasoning": "fine"}',
    });
    const file = join(dir, 'simple.yaml');
    await writeFile(
      file,
      'name: simple\ndescription: d\nparticipants:\n  end_user: {}\n  agent: { type: evaluated ' +
        '}\nconversations:\n  - { name: chat, between: [end_user, agent], initiated_by: end_user ' +
        '}\neval_criteria: [helpful]\n',
    );
    const result = await run([file, '--trials', '3', '--concurrency', '2', '--json', '--no-save']);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.out.join('\n'));
    expect(summary).toMatchObject({
      passed: true,
      seed: 0,
      scenarios: [{ name: 'simple', trials: 3, passes: 3, pass_hat_k: { 1: 1, 2: 1, 3: 1 } }],
    });
    expect(summary.scenarios[0].runs.map((r: { seed: number }) => r.seed)).toEqual([0, 1, 2]);
    expect(result.err).toHaveLength(3);
    expect(result.err[2]).toMatch(/^\[#{20}\] 3\/3 {2}simple #\d {2}PASS/);
  });

  it('reports pass^k below 1 and exits 1 when some trials fail', async () => {
    let judged = 0;
    model.route({
      participant: (request) => (lastUserText(request).includes('[agent]') ? 'Thanks. [END]' : 'Help.'),
      agent: () => 'Done.',
      judge: () => (++judged === 2 ? '{"passed": false, "reasoning": "bad"}' : '{"passed": true, "reasoning": "good"}'),
    });
    const file = join(dir, 'flaky.yaml');
    await writeFile(
      file,
      'name: flaky\ndescription: d\nparticipants:\n  end_user: {}\n  agent: { type: evaluated ' +
        '}\nconversations:\n  - { name: chat, between: [end_user, agent], initiated_by: end_user ' +
        '}\neval_criteria: [helpful]\n',
    );
    const result = await run([file, '--trials', '3', '--concurrency', '1', '--no-save']);
    expect(result.code).toBe(1);
    const out = result.out.join('\n');
    expect(out).toMatch(/FAIL {2}flaky +2\/3 passed {3}pass\^1 0\.67 {3}pass\^3 0\.00/);
    expect(out).toContain('Result: FAIL (1 of 3 runs failed)');
  });

  it('replays a recorded run offline with the same transcript and verdict', async () => {
    const recordDir = join(dir, 'rec');
    const first = await run([
      'scenarios/hotel_cancellation_assist.yaml',
      '--record',
      recordDir,
      '--out',
      join(dir, 'a'),
      '--no-delay',
    ]);
    expect(first.out.join('\n')).toContain(
      `Recording saved to: ${join(recordDir, 'hotel_cancellation_assist', 'trial-1.json')}`,
    );
    env = {};
    const offline = withFaults(model.client, () => 'reject', 'the network must not be used in a replay');
    const second = await run(
      ['scenarios/hotel_cancellation_assist.yaml', '--replay', recordDir, '--out', join(dir, 'b'), '--no-delay'],
      { model: offline },
    );
    expect(second.code).toBe(first.code);
    const load = async (sub: string) => {
      const folder = join(dir, sub, 'hotel_cancellation_assist');
      return JSON.parse(await readFile(join(folder, (await readdir(folder))[0]), 'utf8'));
    };
    const [a, b] = [await load('a'), await load('b')];
    expect(JSON.stringify(b.transcript)).toBe(JSON.stringify(a.transcript));
    expect(JSON.stringify(b.evaluation)).toBe(JSON.stringify(a.evaluation));
  });

  it('exits 2 when a recording to replay is missing', async () => {
    const result = await run(['scenarios/order_refund.yaml', '--replay', join(dir, 'none')]);
    expect(result.code).toBe(2);
    expect(result.err[0]).toBe(
      `${join(dir, 'none', 'order_refund', 'trial-1.json')}: no recording for order_refund trial 1 (record it ` +
        `first with --record)`,
    );
  });

  it('exits 1 naming the participant when the simulation fails, with a stack only when verbose', async () => {
    const failing = withFaults(
      model.client,
      (request) => (isRolePlay(request) ? 'reject' : undefined),
      'model overloaded',
    );
    const quiet = await run(['scenarios/order_refund.yaml', '--no-save'], { model: failing });
    expect(quiet.code).toBe(1);
    expect(quiet.err).toEqual(['order_refund trial 1: simulation participant "end_user" failed: model overloaded']);
    const verbose = await run(['scenarios/order_refund.yaml', '--no-save', '--verbose'], { model: failing });
    expect(verbose.err.join('\n')).toContain('    at ');
  });
});
