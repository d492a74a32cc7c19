/**
 * Binding resolution, table-driven: what the entry used gives the evaluator — `sampling-ratio` and
 * `trigger-on-failure` (from the entry used, else `defaults.agent`), its properties key by key in
 * `config()`, and `control-id` — one case per rule of docs/evaluators.md ("Binding evaluators to
 * agents", "Configuration properties of an evaluator"), including its own examples.
 */
import { describe, it } from 'vitest';
import {
  type BindingCase,
  expectResolution,
  INTERACTION_QUALITY_BINDINGS,
  REPLY_LENGTH_PROPERTIES,
} from './helpers/binding-cases.ts';

const cases: BindingCase[] = [
  // sampling-ratio and trigger-on-failure.
  {
    rule: 'sampling-ratio and trigger-on-failure default to 1.0 and false',
    yaml: INTERACTION_QUALITY_BINDINGS,
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
    rule: 'the documented example: * sets sampling-ratio 0.1, the role entry sets none, so the agent gets 1.0',
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
    rule:
      'a property on the entry applies to every bound agent (reply-length example: min-length 20 for ' +
      'support-agent)',
    yaml: REPLY_LENGTH_PROPERTIES,
    evaluator: 'reply-length-evaluator',
    agent: 'support-agent',
    expect: { source: 'agents::support-agent', config: { 'min-length': 20, trigger: 'interaction' } },
  },
  {
    rule: 'a binding overrides a property key by key (reply-length example: min-length 50 for billing-agent)',
    yaml: REPLY_LENGTH_PROPERTIES,
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
  for (const c of cases) it(c.rule, () => expectResolution(c));
});
