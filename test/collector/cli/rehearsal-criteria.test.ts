/**
 * Where a rehearsal's criteria come from: a `--criteria` file (every problem at its line and path),
 * or the agent's conversation-bound `criteria-judge` binding in a collector configuration (resolved
 * as the collector resolves bindings), and why there are none otherwise.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandFailure } from '../../../collector/cli/api-client.ts';
import { criteriaFromConfig, criteriaFromFile, criteriaOfBinding } from '../../../collector/cli/rehearsal-criteria.ts';
import { loadConfig, type BindingConfig, type EvaluationProcessorConfig } from '../../../collector/config/index.ts';

const WHERE = 'evalon scenario from-conversation';
const CONFIG = `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: {}
  evaluation:
    ledger: { sqlite: { path: ":memory:" } }
    evaluators:
      criteria-judge:
        prompt_template: Judge the whole conversation.
        criteria:
          - The agent greeted the customer
        agents:
          support-agent:
            trigger: interaction
            criteria:
              - The agent found the order
              - { name: tracking, description: The agent gave the tracking number, weight: 2 }
          billing-agent: { trigger: interaction, enabled: false }
        agent-roles:
          customer-facing: { trigger: interaction }
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evalon-criteria-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

function failure(action: () => unknown): CommandFailure {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(CommandFailure);
    return error as CommandFailure;
  }
  throw new Error('expected a CommandFailure');
}

describe('criteria from a --criteria file', () => {
  it('reads a YAML list in the eval_criteria schema', () => {
    const path = file('ok.yaml', '- Answered\n- { name: polite, description: Stayed polite, weight: 0 }\n');
    expect(criteriaFromFile(path, WHERE)).toEqual({
      criteria: [
        { name: 'Answered', description: 'Answered', criterionType: 'binary', requireToolCall: false, weight: 1 },
        { name: 'polite', description: 'Stayed polite', criterionType: 'binary', requireToolCall: false, weight: 0 },
      ],
      source: `from ${path}`,
    });
  });

  it('reports every problem at its line and path (exit 2)', () => {
    const path = file('bad.yaml', '- Answered\n- { name: x, wieght: 2 }\n- { name: y, weight: heavy }\n');
    const error = failure(() => criteriaFromFile(path, WHERE));
    expect(error.exitCode).toBe(2);
    expect(error.message.split('\n')).toEqual([
      `${path}:2:14: [1].wieght: unknown key "wieght" (did you mean "weight"?)`,
      `${path}:3:22: [2].weight: expected a number, got a string ("heavy")`,
    ]);
    expect(failure(() => criteriaFromFile(file('map.yaml', 'a: 1\n'), WHERE)).message).toBe(
      `${join(dir, 'map.yaml')}:1:1: expected a list of criteria, got a mapping`,
    );
    expect(failure(() => criteriaFromFile(file('empty.yaml', '[]\n'), WHERE)).message).toBe(
      `${join(dir, 'empty.yaml')}: lists no criteria (expected a YAML list of criteria, as eval_criteria)`,
    );
  });
});

describe("criteria from the agent's criteria-judge binding", () => {
  const evaluation = () => loadConfig([file('otel-config.yaml', CONFIG)]).config.processors.evaluation;
  /** The configuration with the support agent's binding judging whole conversations. */
  const conversationBound = (): EvaluationProcessorConfig => {
    const loaded = evaluation();
    const entry = loaded.evaluators['criteria-judge'];
    // Written in YAML as `trigger: conversation` once bindings take that trigger.
    const binding = { ...entry.agents['support-agent'], trigger: 'conversation' } as unknown as BindingConfig;
    return {
      ...loaded,
      evaluators: { 'criteria-judge': { ...entry, agents: { ...entry.agents, 'support-agent': binding } } },
    };
  };

  it('takes the criteria and prompt of a conversation-bound binding, the binding over the entry', () => {
    const found = criteriaOfBinding(conversationBound(), { agentId: 'support-agent', roles: [] }, 'otel.yaml');
    expect(found).toEqual({
      criteria: [
        expect.objectContaining({ name: 'The agent found the order' }),
        expect.objectContaining({ name: 'tracking', description: 'The agent gave the tracking number', weight: 2 }),
      ],
      promptTemplate: 'Judge the whole conversation.',
      source: 'the criteria-judge binding agents::support-agent in otel.yaml',
    });
  });

  it('says why there are none: bound per interaction, switched off, not bound, or no entry', () => {
    const config = evaluation();
    expect(criteriaOfBinding(config, { agentId: 'support-agent', roles: [] }, 'otel.yaml')).toEqual({
      missing:
        'in otel.yaml, criteria-judge judges support-agent per interaction (agents::support-agent has trigger: ' +
        'interaction), not per conversation',
    });
    expect(criteriaOfBinding(config, { agentId: 'billing-agent', roles: [] }, 'otel.yaml')).toEqual({
      missing:
        'in otel.yaml, criteria-judge does not evaluate billing-agent: the binding agents::billing-agent sets ' +
        'enabled: false',
    });
    expect(criteriaOfBinding(config, { agentId: 'other', roles: [] }, 'otel.yaml')).toEqual({
      missing:
        'in otel.yaml, criteria-judge does not evaluate other: no entry under agents matches the agent, and it ' +
        'has no role',
    });
    expect(criteriaOfBinding({ ...config, evaluators: {} }, { agentId: 'x', roles: [] }, 'otel.yaml')).toEqual({
      missing: 'otel.yaml has no criteria-judge entry',
    });
  });

  it('reports criteria in the configuration that are not valid (exit 2)', () => {
    const config = conversationBound();
    config.evaluators['criteria-judge'].agents['support-agent'].raw.criteria = [{ name: 'x', weight: -1 }];
    const error = failure(() => criteriaOfBinding(config, { agentId: 'support-agent', roles: [] }, 'otel.yaml'));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      'otel.yaml: criteria-judge (agents::support-agent): criteria[0].weight: expected a weight >= 0',
    );
  });

  it('reads the configuration files it is given', () => {
    const warnings: string[] = [];
    const io = { out: () => {}, err: (line: string) => warnings.push(line) };
    const path = file('given.yaml', CONFIG);
    expect(criteriaFromConfig([path], { agentId: 'billing-agent', roles: [] }, io)).toMatchObject({
      missing: expect.stringContaining(`in ${path}, criteria-judge does not evaluate billing-agent`),
    });
    expect(warnings).toEqual([]);
  });
});
