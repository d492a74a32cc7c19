/**
 * Token budgets as pure state on fake time: the sliding window (its bound and that it never lets a
 * spend out early), which budget an evaluation is held to (entry, binding, neither), what is
 * charged (input + output tokens of verdicts and failed outcomes), the rebuild from recorded
 * outcomes, and one warning a minute per entry.
 */
import { describe, expect, it } from 'vitest';
import type { QueuedEvaluation } from '../../../../collector/ledger/evaluation-queue.ts';
import { loadConfig } from '../../../../collector/config/index.ts';
import { createEvaluationBudgets } from '../../../../collector/processor/evaluation/evaluation-budgets.ts';
import { createTokenWindow, WINDOW_SLOTS } from '../../../../collector/processor/evaluation/token-window.ts';
import type { EvaluationRecord } from '../../../../src/model/records.ts';
import { writeConfigFiles } from '../../../helpers/config-files.ts';
import { createManualClock } from './helpers/manual-clock.ts';

const HOUR = 3_600_000;

describe('a token window', () => {
  it('counts what was spent in the last `per` and lets each spend go once it is older', () => {
    const window = createTokenWindow(1_000, HOUR);
    window.add(0, 400);
    window.add(10 * 60_000, 300);
    expect(window.spent(30 * 60_000)).toBe(700);
    expect(window.spent(HOUR + 1)).toBe(300);
    expect(window.spent(HOUR + 10 * 60_000 + 1)).toBe(0);
    window.add(2 * HOUR, 0);
    window.add(2 * HOUR, Number.NaN);
    expect(window.spent(2 * HOUR)).toBe(0);
  });

  it('holds a bounded number of slots whatever the traffic, never counting a spend too short', () => {
    const window = createTokenWindow(Number.MAX_SAFE_INTEGER, HOUR);
    // One spend every 10 ms for two hours: 720,000 spends.
    for (let at = 0; at < 2 * HOUR; at += 10) window.add(at, 1);
    // The last hour's spends, give or take one slot (a thousandth of the window) counted longer.
    const spent = window.spent(2 * HOUR);
    expect(spent).toBeGreaterThanOrEqual(HOUR / 10);
    expect(spent).toBeLessThanOrEqual(HOUR / 10 + HOUR / WINDOW_SLOTS / 10 + 1);
  });
});

function queued(evaluatorId: string, agentId: string, roles: string[] = []): QueuedEvaluation {
  return {
    evaluationId: `${evaluatorId}-${agentId}`,
    interactionId: 'i',
    evaluatorId,
    evaluatorVersion: '1',
    agentId,
    roles,
    triggeredAt: new Date(0).toISOString(),
    source: 'interaction',
    attempts: 0,
  };
}

function outcome(evaluatorId: string, tokens: [number, number], binding?: string, failed = false): EvaluationRecord {
  const attributes = { 'gen_ai.usage.input_tokens': tokens[0], 'gen_ai.usage.output_tokens': tokens[1] };
  return {
    evaluationId: 'e',
    interactionId: 'i',
    evaluatorId,
    evaluatorVersion: '1',
    agentId: 'support-agent',
    outcome: failed
      ? { type: 'failed', error: 'unreadable', attributes }
      : { type: 'verdict', evaluation: { passed: true, explanation: '', attributes } },
    triggeredAt: '',
    startedAt: '',
    completedAt: new Date(0).toISOString(),
    attempts: 1,
    provenance: { evaluatorType: 'llm_judge', ...(binding ? { binding } : {}) },
  };
}

const YAML = `processors:
  interactions: {}
  evaluation:
    ledger: { sqlite: { path: ":memory:" } }
    evaluators:
      llm-judge/strict:
        rubric: r
        budget: { tokens: 1000, per: 1h }
        agents:
          support-agent: {}
          billing-agent: {}
      llm-judge/candidate:
        rubric: r
        agents:
          support-agent: { budget: { tokens: 500, per: 30m } }
          billing-agent: {}
        agent-roles:
          "*": { budget: { tokens: 200, per: 1m } }
      contains:
        values: [x]
        agents: { support-agent: {} }
service:
  pipelines:
    traces: { receivers: [], processors: [interactions, evaluation] }
`;

function setUp() {
  const [file] = writeConfigFiles({ 'otel-config.yaml': YAML });
  const { config } = loadConfig([file]);
  const clock = createManualClock(0);
  const warnings: string[] = [];
  const budgets = createEvaluationBudgets({
    evaluators: config.processors.evaluation.evaluators,
    defaults: config.processors.evaluation.defaults,
    clock,
    logger: { info() {}, error() {}, warn: (line) => warnings.push(line) },
  })!;
  return { budgets, clock, warnings };
}

describe('evaluation budgets', () => {
  it('holds an entry budget over all its bindings and a binding budget over its own, each on its own', async () => {
    const { budgets, clock } = setUp();
    expect(budgets.check(queued('llm-judge/strict', 'support-agent'))).toBeUndefined();
    budgets.spend(outcome('llm-judge/strict', [500, 100], 'agents::support-agent'));
    budgets.spend(outcome('llm-judge/strict', [300, 100], 'agents::billing-agent', true));
    // 1000 of 1000: spent, for every binding of the entry.
    expect(budgets.check(queued('llm-judge/strict', 'billing-agent'))).toMatchObject({
      evaluatorId: 'llm-judge/strict',
    });
    expect(budgets.check(queued('llm-judge/strict', 'support-agent'))?.binding).toBeUndefined();
    budgets.spend(outcome('llm-judge/candidate', [450, 50], 'agents::support-agent'));
    expect(budgets.check(queued('llm-judge/candidate', 'support-agent'))).toMatchObject({
      binding: 'agents::support-agent',
    });
    // Another binding of that entry, without a budget, and an entry without any.
    expect(budgets.check(queued('llm-judge/candidate', 'billing-agent'))).toBeUndefined();
    expect(budgets.check(queued('contains', 'support-agent'))).toBeUndefined();
    // The * binding by role, with its own budget.
    budgets.spend(outcome('llm-judge/candidate', [200, 0], 'agent-roles::*'));
    expect(budgets.check(queued('llm-judge/candidate', 'other-agent', ['any']))?.binding).toBe('agent-roles::*');
    await clock.advance(30 * 60_000);
    expect(budgets.check(queued('llm-judge/candidate', 'support-agent'))).toBeUndefined();
    expect(budgets.check(queued('llm-judge/strict', 'support-agent'))).toBeDefined();
    await clock.advance(30 * 60_000);
    expect(budgets.check(queued('llm-judge/strict', 'support-agent'))).toBeUndefined();
    expect(budgets.stats()).toEqual([
      { evaluator: 'llm-judge/strict', spent: 0, limit: 1000, window: '1h', skipped: 0 },
      {
        evaluator: 'llm-judge/candidate',
        binding: 'agents::support-agent',
        spent: 0,
        limit: 500,
        window: '30m',
        skipped: 0,
      },
      { evaluator: 'llm-judge/candidate', binding: 'agent-roles::*', spent: 0, limit: 200, window: '1m', skipped: 0 },
    ]);
  });

  it('rebuilds its windows from recorded outcomes, leaving out those older than each window', async () => {
    const { budgets, clock } = setUp();
    await clock.advance(2 * HOUR);
    expect(budgets.restoreQuery()).toEqual({
      evaluatorIds: ['llm-judge/strict', 'llm-judge/candidate'],
      since: 2 * HOUR - HOUR,
    });
    const at = (ms: number, record: EvaluationRecord) => ({ ...record, completedAt: new Date(ms).toISOString() });
    budgets.restore([
      at(2 * HOUR - 10 * 60_000, outcome('llm-judge/strict', [900, 100], 'agents::support-agent')),
      at(2 * HOUR - 40 * 60_000, outcome('llm-judge/candidate', [500, 0], 'agents::support-agent')),
      at(2 * HOUR - 2 * HOUR, outcome('llm-judge/strict', [5000, 0])),
    ]);
    expect(budgets.check(queued('llm-judge/strict', 'billing-agent'))).toBeDefined();
    // 40 minutes ago is outside the binding's 30-minute window.
    expect(budgets.check(queued('llm-judge/candidate', 'support-agent'))).toBeUndefined();
  });

  it('warns once a minute per entry while it skips, saying how many were skipped in between', async () => {
    const { budgets, clock, warnings } = setUp();
    budgets.spend(outcome('llm-judge/strict', [1000, 0]));
    const skip = () => {
      const evaluation = queued('llm-judge/strict', 'support-agent');
      budgets.skipped(evaluation, budgets.check(evaluation)!);
    };
    for (let i = 0; i < 5; i++) skip();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBe(
      'evaluation: llm-judge/strict: its token budget is spent (1000 of 1000 tokens in the last 1h); its new ' +
        'evaluations are skipped and not recorded (raise budget::tokens, or run evalon backfill --evaluator ' +
        'llm-judge/strict once it has room)',
    );
    await clock.advance(60_000);
    skip();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('(5 skipped since the last report)');
    expect(budgets.stats()[0].skipped).toBe(6);
  });

  it('is nothing at all when no entry or binding sets a budget', () => {
    const [file] = writeConfigFiles({ 'otel-config.yaml': YAML.replace(/budget: \{[^}]*\}/g, 'x: 1') });
    const { config } = loadConfig([file]);
    const clock = createManualClock(0);
    const logger = { info() {}, warn() {}, error() {} };
    const { evaluators, defaults } = config.processors.evaluation;
    expect(createEvaluationBudgets({ evaluators, defaults, clock, logger })).toBeUndefined();
  });
});
