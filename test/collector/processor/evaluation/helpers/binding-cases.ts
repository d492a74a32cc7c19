/**
 * Table-driven binding resolution: a case is a configuration as a user would write it (through the
 * real loader), an agent with its roles, and what resolving the evaluator's binding for it gives.
 */
import { expect } from 'vitest';
import {
  describeSource,
  resolveBinding,
  type ResolvedBinding,
} from '../../../../../collector/processor/evaluation/binding-resolution.ts';
import { evaluationConfigFrom } from './evaluation-config.ts';

/**
 * The example interaction-quality evaluator's bindings (docs/evaluators.md, "Binding evaluators to
 * agents"), with a `customer-facing` role entry.
 */
export const INTERACTION_QUALITY_BINDINGS = `
evaluators:
  interaction-quality-evaluator:
    agents:
      support-agent: { trigger: interaction }
      billing-agent: { trigger: interaction, enabled: false }
    agent-roles:
      customer-facing: { trigger: interaction }
`;

/** The example reply-length evaluator's properties (docs/evaluators.md, "Configuration properties of an evaluator"). */
export const REPLY_LENGTH_PROPERTIES = `
evaluators:
  reply-length-evaluator:
    min-length: 20
    agents:
      support-agent: { trigger: interaction }
      billing-agent: { trigger: interaction, min-length: 50 }
`;

export interface BindingCase {
  rule: string;
  yaml: string;
  evaluator: string;
  agent: string;
  roles?: string[];
  expect: Partial<Omit<ResolvedBinding, 'source'>> & { source: string };
}

/** Resolves the case's binding and checks it against the case's expectation. */
export function expectResolution(c: BindingCase): void {
  const { config } = evaluationConfigFrom(c.yaml);
  const resolved = resolveBinding(c.evaluator, config.evaluators[c.evaluator], config.defaults, {
    agentId: c.agent,
    roles: c.roles ?? [],
  });
  const { source, ...rest } = c.expect;
  expect(describeSource(resolved.source)).toBe(source);
  expect(resolved).toMatchObject(rest);
  if (rest.config) expect(resolved.config).toStrictEqual(rest.config);
}
