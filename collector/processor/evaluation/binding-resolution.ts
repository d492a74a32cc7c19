/**
 * Binding resolution, as docs/configuration.md ("Evaluator entries and bindings") states it. For
 * one evaluator entry and one agent (its id and roles), which binding applies and with what
 * effective settings:
 *
 * - precedence: the entry for the agent under `agents`, else the entry for one of its roles under
 *   `agent-roles`, else the `*` entry under `agent-roles` (which binds every agent with any role);
 *   the most specific entry is used even when it is disabled (a disabled agent entry switches the
 *   agent off despite its roles);
 * - `enabled`: the evaluator entry's (else `defaults.evaluator.enabled`) and the binding's
 *   (default true); both must hold;
 * - `sampling-ratio` and `trigger-on-failure`: from the binding used, else `defaults.agent` —
 *   never from a less specific entry;
 * - `config()`: the binding used over the evaluator entry, key by key, without `agents` and
 *   `agent-roles` and without defaults; for an agent without an enabled binding, the entry;
 * - `control-id`: from the evaluator entry;
 * - `trigger`: the binding's (`interaction` unless it writes `conversation`).
 *
 * Where the rules leave a choice: an agent with several roles that each have an entry gets the role
 * entry written first under `agent-roles` (configuration order, not the order the agent lists its
 * roles in, so the choice does not depend on the instrumentation). Pure functions, no I/O.
 */
import type { BindingConfig, EvaluationDefaultsConfig, EvaluatorEntryConfig } from '../../config/evalon-config.ts';
import { DEFAULT_TRIGGER, type Trigger } from './config.ts';

/** The `*` key under `agent-roles`. */
export const ANY_ROLE = '*';

export type BindingSource =
  | { kind: 'agent'; key: string }
  | { kind: 'role'; key: string }
  | { kind: 'any-role' }
  | { kind: 'none' };

export type SettingOrigin = 'binding' | 'defaults.agent';

export interface AgentIdentity {
  agentId: string;
  roles: readonly string[];
}

export interface ResolvedBinding {
  evaluatorId: string;
  /** The entry used for the agent. */
  source: BindingSource;
  /** Whether the evaluator is triggered for this agent at all. */
  enabled: boolean;
  /** On each interaction of the agent, or on each of its conversations once over. */
  trigger: Trigger;
  /** Why not, when `enabled` is false. */
  disabledBecause?: string;
  samplingRatio: number;
  samplingRatioFrom: SettingOrigin;
  triggerOnFailure: boolean;
  triggerOnFailureFrom: SettingOrigin;
  /** The evaluator entry's `control-id`. */
  controlId?: string;
  /** The entry's `version` (its outcomes' evaluator version), when it sets one. */
  version?: string;
  /** Whether the entry is a shadow. */
  shadow: boolean;
  /** What `context.config()` returns. */
  config: Record<string, unknown>;
  /** Entries that also match the agent but lose to `source` (for `evalon explain`). */
  outranked: BindingSource[];
}

/** `agents::support-agent`, `agent-roles::customer-facing`, `agent-roles::*`, or `(none)`. */
export function describeSource(source: BindingSource): string {
  switch (source.kind) {
    case 'agent':
      return `agents::${source.key}`;
    case 'role':
      return `agent-roles::${source.key}`;
    case 'any-role':
      return `agent-roles::${ANY_ROLE}`;
    case 'none':
      return '(none)';
  }
}

/** Every entry of `entry` that matches the agent, most specific first. */
export function matchingSources(entry: EvaluatorEntryConfig, agent: AgentIdentity): BindingSource[] {
  const sources: BindingSource[] = [];
  if (Object.hasOwn(entry.agents, agent.agentId)) sources.push({ kind: 'agent', key: agent.agentId });
  for (const role of Object.keys(entry.agentRoles)) {
    if (role !== ANY_ROLE && agent.roles.includes(role)) sources.push({ kind: 'role', key: role });
  }
  if (agent.roles.length > 0 && Object.hasOwn(entry.agentRoles, ANY_ROLE)) sources.push({ kind: 'any-role' });
  return sources;
}

/** The binding `source` names in `entry`. */
export function bindingOf(entry: EvaluatorEntryConfig, source: BindingSource): BindingConfig | undefined {
  if (source.kind === 'agent') return entry.agents[source.key];
  if (source.kind === 'role') return entry.agentRoles[source.key];
  if (source.kind === 'any-role') return entry.agentRoles[ANY_ROLE];
  return undefined;
}

export function resolveBinding(
  evaluatorId: string,
  entry: EvaluatorEntryConfig,
  defaults: EvaluationDefaultsConfig,
  agent: AgentIdentity,
): ResolvedBinding {
  const [source = { kind: 'none' } as BindingSource, ...outranked] = matchingSources(entry, agent);
  const binding = bindingOf(entry, source);
  const entryEnabled = entry.enabled ?? defaults.evaluator.enabled;
  let disabledBecause: string | undefined;
  if (!entryEnabled) {
    disabledBecause =
      entry.enabled === false
        ? 'the evaluator entry sets enabled: false'
        : 'defaults::evaluator::enabled is false and the evaluator entry does not set enabled';
  } else if (!binding) {
    disabledBecause =
      agent.roles.length > 0
        ? 'no entry under agents or agent-roles matches the agent or its roles'
        : 'no entry under agents matches the agent, and it has no role';
  } else if (binding.enabled === false) {
    disabledBecause = `the binding ${describeSource(source)} sets enabled: false`;
  }
  const resolved: ResolvedBinding = {
    evaluatorId,
    source,
    enabled: disabledBecause === undefined,
    trigger: binding?.trigger ?? DEFAULT_TRIGGER,
    samplingRatio: binding?.samplingRatio ?? defaults.agent.samplingRatio,
    samplingRatioFrom: binding?.samplingRatio !== undefined ? 'binding' : 'defaults.agent',
    triggerOnFailure: binding?.triggerOnFailure ?? defaults.agent.triggerOnFailure,
    triggerOnFailureFrom: binding?.triggerOnFailure !== undefined ? 'binding' : 'defaults.agent',
    config: effectiveConfig(entry, disabledBecause === undefined ? binding : undefined),
    shadow: entry.shadow === true,
    outranked,
  };
  if (entry.version !== undefined) resolved.version = entry.version;
  if (disabledBecause !== undefined) resolved.disabledBecause = disabledBecause;
  if (entry.controlId !== undefined) resolved.controlId = entry.controlId;
  return resolved;
}

/** The binding over the entry, key by key; `agents`/`agent-roles` are never in `raw`. */
export function effectiveConfig(
  entry: EvaluatorEntryConfig,
  binding: BindingConfig | undefined,
): Record<string, unknown> {
  return structuredClone({ ...entry.raw, ...(binding?.raw ?? {}) });
}

/**
 * `config()` and `control-id` for an evaluation that is about to run, from the configuration
 * running now (the running service's configuration). An evaluation queued while its
 * binding was enabled keeps that binding's properties even if an override has disabled it since;
 * an evaluator whose entry is gone gets an empty `config()`.
 */
export function settingsAtRunTime(
  evaluators: Record<string, EvaluatorEntryConfig>,
  defaults: EvaluationDefaultsConfig,
  evaluation: { evaluatorId: string } & AgentIdentity,
): { config: Record<string, unknown>; controlId?: string } {
  const entry = evaluators[evaluation.evaluatorId];
  if (!entry) return { config: {} };
  const { source } = resolveBinding(evaluation.evaluatorId, entry, defaults, evaluation);
  const config = effectiveConfig(entry, bindingOf(entry, source));
  return entry.controlId !== undefined ? { config, controlId: entry.controlId } : { config };
}
