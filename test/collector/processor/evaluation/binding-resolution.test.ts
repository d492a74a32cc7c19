/**
 * Binding resolution, table-driven: at least one case per rule of the seed's "Binding evaluators
 * to agents" and "Configuration properties of an evaluator", including the seed's own examples.
 * Configurations go through the real loader, so each case is what a user would write.
 */
import { describe, expect, it } from 'vitest';
import {
  describeSource,
  resolveBinding,
  type ResolvedBinding,
} from '../../../../collector/processor/evaluation/binding-resolution.ts';
import { evaluationConfigFrom } from './helpers/evaluation-config.ts';

/** The seed's first example, with the spec's `customer-facing` role entry. */
const SEED_QUALITY = `
evaluators:
  interaction-quality-evaluator:
    agents:
      support-agent: { trigger: interaction }
      billing-agent: { trigger: interaction, enabled: false }
    agent-roles:
      customer-facing: { trigger: interaction }
`;

/** The seed's properties example. */
const SEED_REPLY_LENGTH = `
evaluators:
  reply-length-evaluator:
    min-length: 20
    agents:
      support-agent: { trigger: interaction }
      billing-agent: { trigger: interaction, min-length: 50 }
`;

interface Case {
  rule: string;
  yaml: string;
  evaluator: string;
  agent: string;
  roles?: string[];
  expect: Partial<Omit<ResolvedBinding, 'source'>> & { source: string };
}

const cases: Case[] = [
  // Precedence: agent > role > *.
  {
    rule: 'an entry under agents binds that agent (seed: support-agent)',
    yaml: SEED_QUALITY,
    evaluator: 'interaction-quality-evaluator',
    agent: 'support-agent',
    expect: { source: 'agents::support-agent', enabled: true },
  },
  {
    rule: 'the agent entry wins over its role entry, even when disabled (seed: billing-agent with customer-facing)',
    yaml: SEED_QUALITY,
    evaluator: 'interaction-quality-evaluator',
    agent: 'billing-agent',
    roles: ['customer-facing'],
    expect: {
      source: 'agents::billing-agent',
      enabled: false,
      disabledBecause: 'the binding agents::billing-agent sets enabled: false',
    },
  },
  {
    rule: 'an entry under agent-roles binds every agent with that role',
    yaml: SEED_QUALITY,
    evaluator: 'interaction-quality-evaluator',
    agent: 'shop-agent',
    roles: ['customer-facing'],
    expect: { source: 'agent-roles::customer-facing', enabled: true },
  },
  {
    rule: 'an agent neither named nor having a bound role is not bound',
    yaml: SEED_QUALITY,
    evaluator: 'interaction-quality-evaluator',
    agent: 'ops-agent',
    roles: ['internal'],
    expect: { source: '(none)', enabled: false },
  },
  {
    rule: '* under agent-roles binds an agent that has any role (seed: a judge agent with a role is caught by *)',
    yaml: `
evaluators:
  interaction-quality-evaluator:
    agent-roles:
      "*": { trigger: interaction }
`,
    evaluator: 'interaction-quality-evaluator',
    agent: 'quality-judge',
    roles: ['judge'],
    expect: { source: 'agent-roles::*', enabled: true },
  },
  {
    rule: '* does not bind an agent without roles',
    yaml: `
evaluators:
  e:
    agent-roles:
      "*": { trigger: interaction }
`,
    evaluator: 'e',
    agent: 'plain-agent',
    roles: [],
    expect: {
      source: '(none)',
      enabled: false,
      disabledBecause: 'no entry under agents matches the agent, and it has no role',
    },
  },
  {
    rule: 'the seed’s remedy: an entry with enabled = false under agents keeps the judge out of *',
    yaml: `
evaluators:
  e:
    agents:
      quality-judge: { trigger: interaction, enabled: false }
    agent-roles:
      "*": { trigger: interaction }
`,
    evaluator: 'e',
    agent: 'quality-judge',
    roles: ['judge'],
    expect: { source: 'agents::quality-judge', enabled: false },
  },
  {
    rule: 'a role entry wins over *',
    yaml: `
evaluators:
  e:
    agent-roles:
      "*": { trigger: interaction, enabled: false }
      customer-facing: { trigger: interaction }
`,
    evaluator: 'e',
    agent: 'shop-agent',
    roles: ['customer-facing', 'internal'],
    expect: { source: 'agent-roles::customer-facing', enabled: true },
  },
  {
    rule: 'an agent with several bound roles gets the role entry written first under agent-roles',
    yaml: `
evaluators:
  e:
    agent-roles:
      premium: { trigger: interaction, sampling-ratio: 0.5 }
      customer-facing: { trigger: interaction, sampling-ratio: 0.2 }
`,
    evaluator: 'e',
    agent: 'shop-agent',
    roles: ['customer-facing', 'premium'],
    expect: { source: 'agent-roles::premium', samplingRatio: 0.5 },
  },
  // enabled.
  {
    rule: 'enabled = false on the evaluator entry disables it for all agents',
    yaml: `
evaluators:
  e:
    enabled: false
    agents:
      support-agent: { trigger: interaction }
`,
    evaluator: 'e',
    agent: 'support-agent',
    expect: {
      source: 'agents::support-agent',
      enabled: false,
      disabledBecause: 'the evaluator entry sets enabled: false',
    },
  },
  {
    rule: 'enabled = false on one binding disables only that binding',
    yaml: `
evaluators:
  e:
    agents:
      support-agent: { trigger: interaction }
    agent-roles:
      customer-facing: { trigger: interaction, enabled: false }
`,
    evaluator: 'e',
    agent: 'shop-agent',
    roles: ['customer-facing'],
    expect: { source: 'agent-roles::customer-facing', enabled: false },
  },
  {
    rule: 'enabled defaults to true on a binding and an entry',
    yaml: `
evaluators:
  e:
    agents:
      support-agent: {}
`,
    evaluator: 'e',
    agent: 'support-agent',
    expect: { source: 'agents::support-agent', enabled: true },
  },
  {
    rule: 'defaults.evaluator.enabled = false disables entries that do not say',
    yaml: `
defaults:
  evaluator: { enabled: false }
evaluators:
  e:
    agents:
      support-agent: { trigger: interaction }
`,
    evaluator: 'e',
    agent: 'support-agent',
    expect: { source: 'agents::support-agent', enabled: false },
  },
  {
    rule: 'an entry’s own enabled overrides defaults.evaluator.enabled',
    yaml: `
defaults:
  evaluator: { enabled: false }
evaluators:
  e:
    enabled: true
    agents:
      support-agent: { trigger: interaction }
`,
    evaluator: 'e',
    agent: 'support-agent',
    expect: { source: 'agents::support-agent', enabled: true },
  },
  // sampling-ratio and trigger-on-failure.
  {
    rule: 'sampling-ratio and trigger-on-failure default to 1.0 and false',
    yaml: SEED_QUALITY,
    evaluator: 'interaction-quality-evaluator',
    agent: 'support-agent',
    expect: {
      source: 'agents::support-agent',
      samplingRatio: 1,
      samplingRatioFrom: 'defaults.agent',
      triggerOnFailure: false,
      triggerOnFailureFrom: 'defaults.agent',
    },
  },
  {
    rule: 'a binding sets sampling-ratio and trigger-on-failure',
    yaml: `
evaluators:
  e:
    agents:
      support-agent: { trigger: interaction, sampling-ratio: 0.25, trigger-on-failure: true }
`,
    evaluator: 'e',
    agent: 'support-agent',
    expect: {
      source: 'agents::support-agent',
      samplingRatio: 0.25,
      samplingRatioFrom: 'binding',
      triggerOnFailure: true,
      triggerOnFailureFrom: 'binding',
    },
  },
  {
    rule: 'the seed’s example: * sets sampling-ratio 0.1, the role entry sets none, so the agent gets 1.0',
    yaml: `
evaluators:
  e:
    agent-roles:
      "*": { trigger: interaction, sampling-ratio: 0.1 }
      customer-facing: { trigger: interaction }
`,
    evaluator: 'e',
    agent: 'shop-agent',
    roles: ['customer-facing'],
    expect: { source: 'agent-roles::customer-facing', samplingRatio: 1, samplingRatioFrom: 'defaults.agent' },
  },
  {
    rule: 'a key the entry used does not set comes from defaults.agent, never from a less specific entry',
    yaml: `
defaults:
  agent: { sampling-ratio: 0.5, trigger-on-failure: true }
evaluators:
  e:
    agents:
      support-agent: { trigger: interaction }
    agent-roles:
      customer-facing: { trigger: interaction, sampling-ratio: 0.05, trigger-on-failure: false }
`,
    evaluator: 'e',
    agent: 'support-agent',
    roles: ['customer-facing'],
    expect: {
      source: 'agents::support-agent',
      samplingRatio: 0.5,
      samplingRatioFrom: 'defaults.agent',
      triggerOnFailure: true,
      triggerOnFailureFrom: 'defaults.agent',
    },
  },
  // Properties and config().
  {
    rule: 'a property on the entry applies to every bound agent (seed: min-length 20 for support-agent)',
    yaml: SEED_REPLY_LENGTH,
    evaluator: 'reply-length-evaluator',
    agent: 'support-agent',
    expect: { source: 'agents::support-agent', config: { 'min-length': 20, trigger: 'interaction' } },
  },
  {
    rule: 'a binding overrides a property key by key (seed: min-length 50 for billing-agent)',
    yaml: SEED_REPLY_LENGTH,
    evaluator: 'reply-length-evaluator',
    agent: 'billing-agent',
    expect: { source: 'agents::billing-agent', config: { 'min-length': 50, trigger: 'interaction' } },
  },
  {
    rule: 'config() has the reserved keys the entries set, never agents, agent-roles or defaults',
    yaml: `
defaults:
  agent: { sampling-ratio: 0.5 }
evaluators:
  e:
    control-id: QA-1
    tone: formal
    language: en
    agents:
      support-agent: { trigger: interaction, enabled: true, sampling-ratio: 0.3, language: de }
`,
    evaluator: 'e',
    agent: 'support-agent',
    expect: {
      source: 'agents::support-agent',
      config: {
        'control-id': 'QA-1',
        tone: 'formal',
        language: 'de',
        trigger: 'interaction',
        enabled: true,
        'sampling-ratio': 0.3,
      },
    },
  },
  {
    rule: 'config() for an agent without an enabled binding is the evaluator entry',
    yaml: `
evaluators:
  e:
    min-length: 20
    agents:
      billing-agent: { trigger: interaction, enabled: false, min-length: 50 }
`,
    evaluator: 'e',
    agent: 'billing-agent',
    expect: { source: 'agents::billing-agent', enabled: false, config: { 'min-length': 20 } },
  },
  {
    rule: 'control-id comes from the evaluator entry',
    yaml: `
evaluators:
  e:
    control-id: QA-7
    agent-roles:
      "*": { trigger: interaction }
`,
    evaluator: 'e',
    agent: 'shop-agent',
    roles: ['x'],
    expect: { source: 'agent-roles::*', controlId: 'QA-7' },
  },
];

describe('binding resolution', () => {
  for (const c of cases) {
    it(c.rule, () => {
      const { config } = evaluationConfigFrom(c.yaml);
      const resolved = resolveBinding(c.evaluator, config.evaluators[c.evaluator], config.defaults, {
        agentId: c.agent,
        roles: c.roles ?? [],
      });
      const { source, ...rest } = c.expect;
      expect(describeSource(resolved.source)).toBe(source);
      expect(resolved).toMatchObject(rest);
      if (rest.config) expect(resolved.config).toStrictEqual(rest.config);
    });
  }

  it('lists the entries a more specific one outranks', () => {
    const { config } = evaluationConfigFrom(`
evaluators:
  e:
    agents:
      support-agent: {}
    agent-roles:
      customer-facing: {}
      "*": {}
`);
    const resolved = resolveBinding('e', config.evaluators.e, config.defaults, {
      agentId: 'support-agent',
      roles: ['customer-facing'],
    });
    expect(resolved.outranked.map(describeSource)).toEqual(['agent-roles::customer-facing', 'agent-roles::*']);
  });
});

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

  it('rejects sampling-ratio and trigger-on-failure on the evaluator entry, control-id on a binding, and a ratio out of range — together', () => {
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
  });

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
