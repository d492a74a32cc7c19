/**
 * `evalon explain` on evaluator entries named `type/name`: for each entry the id, the evaluator
 * type it runs (its kind and where it is defined), the version its outcomes are recorded under
 * (the entry's or the evaluator's), whether it is a shadow, and the token budgets that hold it.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../../collector/cli/main.ts';
import type { AgentExplanation } from '../../../collector/cli/explain-command.ts';
import { MINIMAL_PIPELINE, writeConfigFiles } from '../../helpers/config-files.ts';

const [configFile] = writeConfigFiles({
  'otel-config.yaml': `processors:
  interactions:
  evaluation:
    ledger: { sqlite: { path: ./no-ledger-yet.db } }
    evaluators:
      llm-judge/strict:
        rubric: The reply answers the question.
        budget: { tokens: 200000, per: 1h }
        agents: { support-agent: {} }
      llm-judge/candidate:
        shadow: true
        version: "2"
        rubric: The reply answers the question, politely.
        agents: { support-agent: { budget: { tokens: 5000, per: 30m } } }
      contains: { values: [order], agents: { billing-agent: {} } }
${MINIMAL_PIPELINE}`,
});

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await main(args, { out: (line) => out.push(line), err: () => {} });
  return { code, out: out.join('\n') };
}

describe('evalon explain on evaluator entries', () => {
  it('shows each entry id with its evaluator type, kind, version, shadow mark and budgets', async () => {
    const { code, out } = await cli(['explain', '--config', configFile, '--agent', 'support-agent']);
    expect(code).toBe(0);
    expect(out).toContain('Evaluators: llm-judge/strict, llm-judge/candidate, contains.');
    expect(out).toContain(
      '  llm-judge/strict: evaluated\n    entry      agents::support-agent\n' +
        '    why        the agent has its own entry under agents, which wins over role entries and *\n',
    );
    expect(out).toContain(
      "    evaluator  llm-judge (llm_judge, built-in), version 1 (the evaluator's)\n" +
        '    budget     200000 tokens per 1h (the entry, all its bindings)\n',
    );
    expect(out).toContain('  llm-judge/candidate: evaluated (shadow: recorded, left out of pass rates)\n');
    expect(out).toContain(
      "    evaluator  llm-judge (llm_judge, built-in), version 2 (the entry's)\n" +
        '    budget     5000 tokens per 30m (this binding)',
    );
    expect(out).toContain('  contains: not evaluated');
    expect(out).toContain("    evaluator  contains (deterministic, built-in), version 1 (the evaluator's)");
  });

  it('gives the same as JSON', async () => {
    const { code, out } = await cli(['explain', '--config', configFile, '--agent', 'support-agent', '--json']);
    expect(code).toBe(0);
    const [explanation] = JSON.parse(out) as AgentExplanation[];
    expect(
      explanation.bindings.map(({ evaluatorId, type, kind, version, versionFrom, shadow, budgets }) => ({
        evaluatorId,
        type,
        kind,
        version,
        versionFrom,
        shadow,
        budgets,
      })),
    ).toEqual([
      {
        evaluatorId: 'llm-judge/strict',
        type: 'llm-judge',
        kind: 'llm_judge',
        version: '1',
        versionFrom: 'evaluator',
        shadow: false,
        budgets: [{ tokens: 200000, per: '1h', of: 'entry' }],
      },
      {
        evaluatorId: 'llm-judge/candidate',
        type: 'llm-judge',
        kind: 'llm_judge',
        version: '2',
        versionFrom: 'entry',
        shadow: true,
        budgets: [{ tokens: 5000, per: '30m', of: 'binding' }],
      },
      {
        evaluatorId: 'contains',
        type: 'contains',
        kind: 'deterministic',
        version: '1',
        versionFrom: 'evaluator',
        shadow: false,
        budgets: [],
      },
    ]);
  });

  it('shows the trigger of an entry bound per conversation beside one bound per interaction', async () => {
    const [file] = writeConfigFiles({
      'otel-config.yaml': `processors:
  interactions:
  evaluation:
    ledger: { sqlite: { path: ./no-ledger-yet.db } }
    evaluators:
      llm-judge:
        rubric: The reply answers the question.
        agents: { support-agent: {} }
      llm-judge/whole-conversation:
        rubric: By the end, the customer knows where the order is.
        agents: { support-agent: { trigger: conversation } }
${MINIMAL_PIPELINE}`,
    });
    const { code, out } = await cli(['explain', '--config', file!, '--agent', 'support-agent']);
    expect(code).toBe(0);
    const [perInteraction, perConversation] = out.split('  llm-judge/whole-conversation: ');
    expect(perInteraction).not.toContain('trigger    conversation');
    expect(perConversation).toContain('    trigger    conversation (each conversation, once it is over)\n');
    const [explanation] = JSON.parse(
      (await cli(['explain', '--config', file!, '--agent', 'support-agent', '--json'])).out,
    ) as AgentExplanation[];
    expect(explanation.bindings.map(({ evaluatorId, trigger }) => [evaluatorId, trigger])).toEqual([
      ['llm-judge', 'interaction'],
      ['llm-judge/whole-conversation', 'conversation'],
    ]);
  });
});
