/** `evalon explain` and `evalon backfill` against a configuration and a ledger file. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../collector/cli/main.ts';
import { runBackfillCommand } from '../../../collector/cli/backfill-command.ts';
import type { AgentExplanation } from '../../../collector/cli/explain-command.ts';
import { createSqliteStore } from '../../../collector/ledger/sqlite/sqlite-store.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { testInteractionRecord } from '../../../src/testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-cli-eval-'));
const configFile = join(dir, 'otel-config.yaml');
const ledgerPath = join(dir, 'ledger.db');
const EXAMPLES = fileURLToPath(new URL('../../../examples/evaluators/index.ts', import.meta.url));

writeFileSync(
  configFile,
  `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
processors:
  interactions: {}
  evaluation:
    ledger: { sqlite: { path: ${ledgerPath} } }
    modules: [ ${EXAMPLES} ]
    defaults:
      agent: { sampling-ratio: 1.0 }
    evaluators:
      interaction-quality-evaluator:
        control-id: QA-1
        agents:
          support-agent: { trigger: interaction }
          billing-agent: { trigger: interaction, enabled: false }
        agent-roles:
          customer-facing: { trigger: interaction, sampling-ratio: 0.25 }
      reply-length-evaluator:
        min-length: 20
        agents:
          support-agent: { trigger: interaction }
          billing-agent: { trigger: interaction, min-length: 50 }
        agent-roles:
          "*": { trigger: interaction }
`,
);

function record(agentId: string, overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return testInteractionRecord({
    traceId,
    spanId,
    interactionId: `${traceId}-${spanId}`,
    agentId,
    endTime: new Date().toISOString(),
    ...overrides,
  });
}

const records = [
  ...Array.from({ length: 6 }, () => record('support-agent', { roles: ['customer-facing'] })),
  ...Array.from({ length: 3 }, () =>
    record('billing-agent', { roles: ['customer-facing'], finalResponseText: 'Refunded.' }),
  ),
  record('ops-agent'),
  record('quality-judge', { roles: ['judge'], attributes: { 'evalon.evaluation.id': 'e-1' } }),
];

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  const store = createSqliteStore({ path: ledgerPath });
  await store.putInteractions(records);
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('evalon explain', () => {
  it('explains every known agent: which entry binds it, why, and its effective settings', async () => {
    const { code, out } = await cli(['explain', '--config', configFile]);
    expect(code).toBe(0);
    expect(out).toContain('Evaluators: interaction-quality-evaluator, reply-length-evaluator.');
    expect(out).toMatch(
      /billing-agent {2}roles: customer-facing \(from its newest interaction\); in the ledger: 3 interactions/,
    );
    expect(out).toContain(
      '  interaction-quality-evaluator: not evaluated\n    entry      agents::billing-agent (outranks ' +
        'agent-roles::customer-facing)\n' +
        '    why        the agent has its own entry under agents, which wins over role entries and *, but the ' +
        'binding agents::billing-agent sets enabled: false',
    );
    expect(out).toContain('    config()   {"min-length":50,"trigger":"interaction"}');
    expect(out).toMatch(
      new RegExp(
        /\(any agent with role customer-facing\) {2}roles: customer-facing\n/.source +
          / {2}interaction-quality-evaluator: evaluated\n/.source +
          / {4}entry {6}agent-roles::customer-facing\n/.source,
      ),
    );
    expect(out).toContain(
      '    settings   sampling-ratio 0.25 (from the binding), trigger-on-failure false (from defaults::agent), ' +
        'control-id QA-1',
    );
    expect(out).toMatch(/ops-agent {2}roles: \(none\)/);
    expect(out).toContain('no entry under agents matches the agent, and it has no role');
    expect(out).toMatch(/Loop safety: .*evalon\.evaluation\.id/);
  });

  it('explains one agent with the roles given, as JSON', async () => {
    const { code, out } = await cli([
      'explain',
      '--config',
      configFile,
      '--agent',
      'shop-agent',
      '--roles',
      'premium, customer-facing',
      '--json',
    ]);
    expect(code).toBe(0);
    const [explanation] = JSON.parse(out) as AgentExplanation[];
    expect(explanation).toMatchObject({
      agentId: 'shop-agent',
      roles: ['premium', 'customer-facing'],
      rolesFrom: '--roles',
    });
    expect(explanation.bindings).toEqual([
      expect.objectContaining({
        evaluatorId: 'interaction-quality-evaluator',
        evaluated: true,
        entry: 'agent-roles::customer-facing',
        samplingRatio: 0.25,
        controlId: 'QA-1',
      }),
      expect.objectContaining({
        evaluatorId: 'reply-length-evaluator',
        evaluated: true,
        entry: 'agent-roles::*',
        samplingRatio: 1,
        samplingRatioFrom: 'defaults.agent',
        config: { 'min-length': 20, trigger: 'interaction' },
      }),
    ]);
  });

  it('rejects --roles without --agent', async () => {
    const { code, err } = await cli(['explain', '--config', configFile, '--roles', 'a']);
    expect(code).toBe(2);
    expect(err).toBe('evalon explain: --roles needs --agent');
  });
});

describe('evalon backfill', () => {
  it('evaluates the stored interactions the bindings trigger, with a progress bar', async () => {
    const updates: string[] = [];
    const progress = {
      update: (done: number, total: number) => updates.push(`${done}/${total}`),
      finish: (done: number, total: number) => updates.push(`done ${done}/${total}`),
    };
    const out: string[] = [];
    const code = await runBackfillCommand(
      ['--evaluator', 'reply-length-evaluator', '--config', configFile],
      { out: (l) => out.push(l), err: () => {} },
      { progress },
    );
    expect(code).toBe(0);
    expect(updates.at(-1)).toBe(`done ${records.length}/${records.length}`);
    // support-agent ×6 (min 20: pass), billing-agent ×3 (min 50: fail); ops-agent has no binding; the judge is
    // inside an evaluation.
    expect(out.join('\n')).toBe(
      `backfill reply-length-evaluator (version 1): ${records.length} interactions read; 9 evaluated (6 passed, ` +
        `3 failed, 0 inconclusive, 0 errors); ` +
        '0 already had an outcome for this version; 2 not triggered by the bindings',
    );
    const store = createSqliteStore({ path: ledgerPath });
    try {
      const billing = await store.getEvaluations(records[6].interactionId);
      expect(billing).toMatchObject([
        {
          evaluatorId: 'reply-length-evaluator',
          evaluatorVersion: '1',
          outcome: { evaluation: { passed: false, explanation: 'reply of 9 characters, minimum 50' } },
        },
      ]);
      expect(await store.countQueuedEvaluations()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('evaluates each interaction once per version: again is a no-op, a new --version evaluates again', async () => {
    const again = await cli(['backfill', '--evaluator', 'reply-length-evaluator', '--config', configFile]);
    expect(again.out).toContain('0 evaluated');
    expect(again.out).toContain('9 already had an outcome for this version');
    const v2 = await cli([
      'backfill',
      '--evaluator',
      'reply-length-evaluator',
      '--version',
      '2',
      '--agent',
      'billing-agent',
      '--since',
      '30d',
      '--config',
      configFile,
    ]);
    expect(v2.code).toBe(0);
    expect(v2.out).toContain('backfill reply-length-evaluator (version 2): 3 interactions read; 3 evaluated');
    const store = createSqliteStore({ path: ledgerPath });
    try {
      expect((await store.getEvaluations(records[6].interactionId)).map((e) => e.evaluatorVersion)).toEqual(['1', '2']);
      expect((await store.getEvaluations(records[0].interactionId)).map((e) => e.evaluatorVersion)).toEqual(['1']);
    } finally {
      await store.close();
    }
  });

  it('explains bad input with exit code 2', async () => {
    expect(await cli(['backfill', '--config', configFile])).toMatchObject({
      code: 2,
      err: 'evalon backfill: --evaluator ID is required (see evalon backfill --help)',
    });
    const unknown = await cli(['backfill', '--evaluator', 'reply-lenght', '--config', configFile]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(
      new RegExp(
        /evalon backfill: evaluator "reply-lenght" is not defined /.source +
          /\(known: contains, criteria-judge, human-review, interaction-quality-evaluator/.source,
      ),
    );
    const unbound = await cli(['backfill', '--evaluator', 'regex', '--config', configFile]);
    expect(unbound.err).toBe(
      'evalon backfill: evaluator "regex" has no entry under processors::evaluation::evaluators, so it is bound ' +
        'to no agent (add one, then backfill)',
    );
    expect(
      (await cli(['backfill', '--evaluator', 'regex', '--since', 'yesterday', '--config', configFile])).err,
    ).toMatch(/--since must be an ISO-8601 time or a duration/);
  });
});
