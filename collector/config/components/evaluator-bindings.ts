/**
 * `processors.evaluation.evaluators`: evaluator entries and their bindings, with the seed's
 * reserved keys. Any other key is a property of the evaluator, kept as written. This file checks
 * where reserved keys are written and what values they hold; which binding applies to an agent
 * and its effective settings are the evaluation runtime's business.
 */
import * as z from 'zod';
import type { BindingConfig, EvaluatorEntryConfig } from '../evalon-config.ts';
import { emptyAsMapping, forbidden } from '../schema-kit.ts';
import { ratio, text } from '../values.ts';

/** Keys the runtime reads; never passed to an evaluator as properties. */
export const RESERVED_KEYS = [
  'enabled',
  'trigger',
  'sampling-ratio',
  'trigger-on-failure',
  'control-id',
  'agents',
  'agent-roles',
] as const;

export const DEFAULT_TRIGGER = 'interaction';

const WHERE_BINDING_SETTINGS_GO =
  'is not allowed on an evaluator entry (set it on a binding under agents or agent-roles, or under processors::evaluation::defaults::agent)';

const bindingSchema = emptyAsMapping(
  z.looseObject({
    trigger: z.literal(DEFAULT_TRIGGER).optional(),
    enabled: z.boolean().optional(),
    'sampling-ratio': ratio().optional(),
    'trigger-on-failure': z.boolean().optional(),
    'control-id': forbidden('is not allowed on a binding (set it on the evaluator entry)'),
    agents: forbidden('is not allowed inside a binding (bindings do not nest)'),
    'agent-roles': forbidden('is not allowed inside a binding (bindings do not nest)'),
  }),
).transform((binding): BindingConfig => {
  const raw = written(binding);
  return {
    trigger: binding.trigger ?? DEFAULT_TRIGGER,
    ...(binding.enabled !== undefined ? { enabled: binding.enabled } : {}),
    ...(binding['sampling-ratio'] !== undefined ? { samplingRatio: binding['sampling-ratio'] } : {}),
    ...(binding['trigger-on-failure'] !== undefined ? { triggerOnFailure: binding['trigger-on-failure'] } : {}),
    properties: withoutReserved(raw),
    raw,
  };
});

/** Bindings keyed by agent id; `*` exists only under agent-roles. */
const agentBindingsSchema = emptyAsMapping(
  z
    .object({ '*': forbidden('is only allowed under agent-roles, where it binds every agent that has any role') })
    .catchall(bindingSchema),
).transform(({ '*': _star, ...bindings }) => bindings as Record<string, BindingConfig>);

const roleBindingsSchema = emptyAsMapping(z.record(z.string(), bindingSchema));

export const evaluatorEntrySchema = emptyAsMapping(
  z.looseObject({
    enabled: z.boolean().optional(),
    'control-id': text().optional(),
    agents: agentBindingsSchema,
    'agent-roles': roleBindingsSchema,
    'sampling-ratio': forbidden(WHERE_BINDING_SETTINGS_GO),
    'trigger-on-failure': forbidden(WHERE_BINDING_SETTINGS_GO),
    trigger: forbidden(
      'is not allowed on an evaluator entry (each binding under agents or agent-roles declares its trigger)',
    ),
  }),
).transform((entry): EvaluatorEntryConfig => {
  const { agents, 'agent-roles': agentRoles, ...rest } = entry;
  const raw = written(rest);
  return {
    ...(entry.enabled !== undefined ? { enabled: entry.enabled } : {}),
    ...(entry['control-id'] !== undefined ? { controlId: entry['control-id'] } : {}),
    properties: withoutReserved(raw),
    agents,
    agentRoles,
    raw,
  };
});

export const evaluatorsSchema = emptyAsMapping(z.record(z.string(), evaluatorEntrySchema));

/** The keys that were written (zod leaves absent optional keys as `undefined`). */
function written(mapping: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(mapping).filter(([, value]) => value !== undefined));
}

function withoutReserved(mapping: Record<string, unknown>): Record<string, unknown> {
  const reserved: readonly string[] = RESERVED_KEYS;
  return Object.fromEntries(Object.entries(mapping).filter(([key]) => !reserved.includes(key)));
}
