/**
 * Binding resolution, table-driven: which entry binds an agent — one case per rule of precedence
 * (agent, then role, then `*`) and of `enabled`, from docs/evaluators.md ("Binding evaluators to
 * agents"), including its own examples. What the entry used gives the evaluator:
 * binding-settings.test.ts; configuration errors: binding-configuration-errors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { describeSource, resolveBinding } from '../../../../collector/processor/evaluation/binding-resolution.ts';
import { evaluationConfigFrom } from './helpers/evaluation-config.ts';
import { type BindingCase, expectResolution, INTERACTION_QUALITY_BINDINGS } from './helpers/binding-cases.ts';

const cases: BindingCase[] = [
  // Precedence: agent > role > *.
  {
    rule: 'an entry under agents binds that agent (interaction-quality example: support-agent)',
    yaml: INTERACTION_QUALITY_BINDINGS,
    evaluator: 'interaction-quality-evaluator',
    agent: 'support-agent',
    expect: { source: 'agents::support-agent', enabled: true },
  },
  {
    rule:
      'the agent entry wins over its role entry, even when disabled (interaction-quality example: ' +
      'billing-agent with customer-facing)',
    yaml: INTERACTION_QUALITY_BINDINGS,
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
    yaml: INTERACTION_QUALITY_BINDINGS,
    evaluator: 'interaction-quality-evaluator',
    agent: 'shop-agent',
    roles: ['customer-facing'],
    expect: { source: 'agent-roles::customer-facing', enabled: true },
  },
  {
    rule: 'an agent neither named nor having a bound role is not bound',
    yaml: INTERACTION_QUALITY_BINDINGS,
    evaluator: 'interaction-quality-evaluator',
    agent: 'ops-agent',
    roles: ['internal'],
    expect: { source: '(none)', enabled: false },
  },
  {
    rule:
      '* under agent-roles binds an agent that has any role (the *-role hazard: a judge agent with a role is ' +
      'caught by *)',
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
    rule: 'the remedy for the *-role hazard: an entry with enabled = false under agents keeps the judge out of *',
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
];

describe('binding resolution', () => {
  for (const c of cases) it(c.rule, () => expectResolution(c));

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
