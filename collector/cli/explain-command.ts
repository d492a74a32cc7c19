/**
 * `evalon explain [--config FILE]... [--agent ID [--roles a,b]] [--json]`: for each known agent,
 * which evaluator entry applies, why, and the effective settings (sampling-ratio and
 * trigger-on-failure with where each comes from, control-id, and what `config()` returns), with
 * each entry's evaluator type and kind, version, shadow mark and token budgets.
 *
 * Known agents: those named under `agents` in the configuration and those the ledger has seen
 * (with the roles of their newest interaction), plus one line per role named under `agent-roles`
 * for an agent that has only that role. `--agent` explains one agent; its roles come from
 * `--roles`, else from the ledger.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, type EvaluationProcessorConfig } from '../config/index.ts';
import { openLedgerStore } from '../ledger/open-store.ts';
import type { AgentSummary } from '../ledger/store.ts';
import {
  ANY_ROLE,
  bindingOf,
  describeSource,
  resolveBinding,
  type ResolvedBinding,
} from '../processor/evaluation/binding-resolution.ts';
import { EVALUATION_ID_ATTRIBUTE } from '../../src/model/attributes.ts';
import { formatDuration } from '../../src/config/duration.ts';
import type { EvaluatorType } from '../../src/model/records.ts';
import { BUILT_IN_EVALUATORS } from '../evaluators/index.ts';
import { entryType } from '../processor/evaluation/entry-id.ts';
import type { EvaluatorRegistry } from '../processor/evaluation/evaluator-registry.ts';
import { loadEvaluatorRegistry } from '../processor/evaluation/load-evaluator-modules.ts';
import { CONFIG_OPTION, DEFAULT_CONFIG_FILE, UsageError } from './args.ts';
import type { CliIo } from './cli-io.ts';
import { type CliCommand, formatHelp } from './command.ts';

export const explainCommand: CliCommand = {
  help: {
    usage: '[--config FILE]... [--agent ID [--roles a,b]] [--json]',
    description:
      'For each known agent (or the one given), which evaluator entry binds it, why, and the effective settings; ' +
      'for each entry, the evaluator it runs (type and kind), the version its outcomes are recorded under, ' +
      'whether it is a shadow and its token budgets. ' +
      'Agents are those named in the configuration and those the ledger has seen.',
    options: [
      CONFIG_OPTION,
      { flag: '--agent ID', description: 'explain this agent only' },
      {
        flag: '--roles a,b',
        description: "the agent's roles, comma-separated (with --agent)",
        default: 'the roles of its newest interaction in the ledger',
      },
      { flag: '--json', description: 'print the explanations as JSON' },
    ],
    examples: ['evalon explain --agent billing-agent --roles customer-facing'],
  },
  run: (args, io) => runExplainCommand(args, io),
};

export interface AgentExplanation {
  agentId: string;
  roles: string[];
  /** Where the roles come from. */
  rolesFrom: 'ledger' | '--roles' | 'configuration' | 'none';
  seen?: { interactions: number; lastSeen: string };
  bindings: BindingExplanation[];
}

export interface BindingExplanation {
  /** The entry id (`type` or `type/name`). */
  evaluatorId: string;
  /** The evaluator the entry runs (before the `/`), its kind and where it is defined. */
  type: string;
  kind?: EvaluatorType;
  origin?: string;
  /** What its outcomes are recorded under: the entry's `version`, else the evaluator's. */
  version?: string;
  versionFrom: 'entry' | 'evaluator' | 'unknown';
  shadow: boolean;
  /** The token budgets the agent's evaluations of this entry are held to. */
  budgets: Array<{ tokens: number; per: string; of: 'entry' | 'binding' }>;
  evaluated: boolean;
  entry: string;
  why: string;
  outranks: string[];
  /** `interaction`, or `conversation`: judged once each conversation is over. */
  trigger: 'interaction' | 'conversation';
  samplingRatio: number;
  samplingRatioFrom: string;
  triggerOnFailure: boolean;
  triggerOnFailureFrom: string;
  controlId?: string;
  config: Record<string, unknown>;
}

export async function runExplainCommand(args: string[], io: CliIo): Promise<number> {
  const values = parseExplainArgs(args);
  if (values.help) {
    io.out(formatHelp(['explain'], explainCommand));
    return 0;
  }
  if (values.roles !== undefined && values.agent === undefined)
    throw new UsageError('evalon explain: --roles needs --agent');
  const configFiles = values.config?.length ? values.config : [DEFAULT_CONFIG_FILE];
  const { config, warnings } = loadConfig(configFiles);
  for (const warning of warnings) io.err(`warning: ${warning}`);
  const evaluation = config.processors.evaluation;
  // As startup does: each entry's type must be an evaluator, whose kind and version are shown.
  const registry = await loadEvaluatorRegistry({
    modules: evaluation.modules,
    builtIns: BUILT_IN_EVALUATORS,
    configuredIds: Object.keys(evaluation.evaluators),
  });
  const seen = await agentsInLedger(evaluation);

  const explanations: AgentExplanation[] = [];
  if (values.agent !== undefined) {
    const known = seen.get(values.agent);
    const roles = values.roles !== undefined ? splitRoles(values.roles) : (known?.roles ?? []);
    const rolesFrom = values.roles !== undefined ? '--roles' : known ? 'ledger' : 'none';
    explanations.push(explainAgent(evaluation, values.agent, roles, rolesFrom, known, registry));
  } else {
    const named = new Set<string>();
    for (const entry of Object.values(evaluation.evaluators))
      for (const agentId of Object.keys(entry.agents)) named.add(agentId);
    for (const agentId of [...new Set([...named, ...seen.keys()])].sort()) {
      const known = seen.get(agentId);
      explanations.push(
        explainAgent(evaluation, agentId, known?.roles ?? [], known ? 'ledger' : 'none', known, registry),
      );
    }
    const roles = new Set<string>();
    for (const entry of Object.values(evaluation.evaluators))
      for (const role of Object.keys(entry.agentRoles)) if (role !== ANY_ROLE) roles.add(role);
    for (const role of [...roles].sort())
      explanations.push(
        explainAgent(evaluation, `(any agent with role ${role})`, [role], 'configuration', undefined, registry),
      );
  }

  if (values.json) {
    io.out(JSON.stringify(explanations, null, 2));
    return 0;
  }
  const evaluatorIds = Object.keys(evaluation.evaluators);
  if (evaluatorIds.length === 0) io.out('No evaluators are configured (processors::evaluation::evaluators is empty).');
  else
    io.out(
      `Evaluators: ${evaluatorIds.join(', ')}. Defaults for bindings: sampling-ratio ` +
        `${evaluation.defaults.agent.samplingRatio}, trigger-on-failure ${evaluation.defaults.agent.triggerOnFailure}.`,
    );
  if (explanations.length === 0)
    io.out('No known agents: none is named under agents and the ledger has seen none (try --agent ID --roles a,b).');
  for (const explanation of explanations) printAgent(explanation, io);
  io.out('');
  io.out(
    `Loop safety: an interaction inside an evaluation (${EVALUATION_ID_ATTRIBUTE} on its root span, or nested in one ` +
      'that has it) is never evaluated, whatever the bindings say.',
  );
  return 0;
}

function splitRoles(text: string): string[] {
  return text
    .split(',')
    .map((role) => role.trim())
    .filter((role) => role !== '');
}

/** Agents the ledger has seen, when the ledger is a file that exists or a PostgreSQL database. */
function parseExplainArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        config: { type: 'string', short: 'c', multiple: true },
        agent: { type: 'string' },
        roles: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(`evalon explain: ${(error as Error).message.split('\n')[0]} (see evalon explain --help)`);
  }
}

async function agentsInLedger(evaluation: EvaluationProcessorConfig): Promise<Map<string, AgentSummary>> {
  const ledger = evaluation.ledger;
  if (ledger.kind === 'sqlite' && (ledger.path === ':memory:' || !existsSync(ledger.path))) return new Map();
  const store = await openLedgerStore(ledger, { sqliteWriter: 'inline' });
  try {
    return new Map((await store.listAgents()).map((agent) => [agent.agentId, agent]));
  } finally {
    await store.close();
  }
}

export function explainAgent(
  evaluation: Pick<EvaluationProcessorConfig, 'evaluators' | 'defaults'>,
  agentId: string,
  roles: string[],
  rolesFrom: AgentExplanation['rolesFrom'],
  seen?: AgentSummary,
  registry?: EvaluatorRegistry,
): AgentExplanation {
  const bindings = Object.entries(evaluation.evaluators).map(([evaluatorId, entry]) => {
    const resolved = resolveBinding(evaluatorId, entry, evaluation.defaults, { agentId, roles });
    const definition = registry?.get(evaluatorId);
    const binding = bindingOf(entry, resolved.source);
    const budgets: BindingExplanation['budgets'] = [];
    if (entry.budget)
      budgets.push({ tokens: entry.budget.tokens, per: formatDuration(entry.budget.perMs), of: 'entry' });
    if (resolved.enabled && binding?.budget)
      budgets.push({ tokens: binding.budget.tokens, per: formatDuration(binding.budget.perMs), of: 'binding' });
    const version = entry.version ?? definition?.version;
    const explained: BindingExplanation = {
      evaluatorId,
      type: entryType(evaluatorId),
      ...(definition ? { kind: definition.type, origin: registry?.origin(evaluatorId) } : {}),
      ...(version !== undefined ? { version } : {}),
      versionFrom: entry.version !== undefined ? 'entry' : definition ? 'evaluator' : 'unknown',
      shadow: entry.shadow === true,
      budgets,
      evaluated: resolved.enabled,
      entry: describeSource(resolved.source),
      why: why(resolved, roles),
      outranks: resolved.outranked.map(describeSource),
      trigger: resolved.trigger,
      samplingRatio: resolved.samplingRatio,
      samplingRatioFrom: resolved.samplingRatioFrom,
      triggerOnFailure: resolved.triggerOnFailure,
      triggerOnFailureFrom: resolved.triggerOnFailureFrom,
      config: resolved.config,
    };
    if (resolved.controlId !== undefined) explained.controlId = resolved.controlId;
    return explained;
  });
  return {
    agentId,
    roles,
    rolesFrom,
    ...(seen ? { seen: { interactions: seen.interactions, lastSeen: seen.lastSeen } } : {}),
    bindings,
  };
}

function why(resolved: ResolvedBinding, roles: string[]): string {
  const source = resolved.source;
  let reason: string;
  if (source.kind === 'agent') reason = 'the agent has its own entry under agents, which wins over role entries and *';
  else if (source.kind === 'role') {
    const bound = resolved.outranked.filter((other) => other.kind === 'role').length > 0;
    reason =
      `no entry for the agent under agents; its role ${source.key} has an ` +
      `entry${bound ? ' (the first of its roles with an entry, in configuration order)' : ''}`;
  } else if (source.kind === 'any-role')
    reason =
      'no entry for the agent or for its ' +
      `role${roles.length === 1 ? '' : 's'}; * binds every agent that has a role`;
  else return resolved.disabledBecause ?? 'no entry applies';
  return resolved.enabled ? reason : `${reason}, but ${resolved.disabledBecause}`;
}

function printAgent(explanation: AgentExplanation, io: CliIo): void {
  io.out('');
  const roles =
    explanation.roles.length > 0
      ? explanation.roles.join(', ')
      : explanation.rolesFrom === 'none'
        ? '(none known: not in the ledger; try --agent ID --roles a,b)'
        : '(none)';
  const from =
    explanation.rolesFrom === 'ledger'
      ? ' (from its newest interaction)'
      : explanation.rolesFrom === '--roles'
        ? ' (from --roles)'
        : '';
  const seen = explanation.seen
    ? `; in the ledger: ${explanation.seen.interactions} interactions, last ${explanation.seen.lastSeen}`
    : '';
  io.out(`${explanation.agentId}  roles: ${roles}${from}${seen}`);
  for (const binding of explanation.bindings) {
    io.out(
      `  ${binding.evaluatorId}: ${binding.evaluated ? 'evaluated' : 'not evaluated'}` +
        `${binding.shadow ? ' (shadow: recorded, left out of pass rates)' : ''}`,
    );
    io.out(
      '    entry      ' +
        `${binding.entry}${binding.outranks.length > 0 ? ` (outranks ${binding.outranks.join(', ')})` : ''}`,
    );
    io.out(`    why        ${binding.why}`);
    if (binding.evaluated) {
      // Interactions are the default trigger; a conversation binding says so.
      if (binding.trigger === 'conversation')
        io.out('    trigger    conversation (each conversation, once it is over)');
      io.out(
        `    settings   sampling-ratio ${binding.samplingRatio} (from ` +
          `${binding.samplingRatioFrom === 'binding' ? 'the binding' : 'defaults::agent'}), ` +
          `trigger-on-failure ${binding.triggerOnFailure} (from ` +
          `${binding.triggerOnFailureFrom === 'binding' ? 'the binding' : 'defaults::agent'})` +
          (binding.controlId !== undefined ? `, control-id ${binding.controlId}` : ''),
      );
      io.out(`    config()   ${JSON.stringify(binding.config)}`);
    }
    io.out(`    evaluator  ${describeEvaluator(binding)}`);
    if (binding.budgets.length > 0) io.out(`    budget     ${binding.budgets.map(describeBudget).join('; ')}`);
  }
}

function describeBudget(budget: BindingExplanation['budgets'][number]): string {
  const of = budget.of === 'entry' ? 'the entry, all its bindings' : 'this binding';
  return `${budget.tokens} tokens per ${budget.per} (${of})`;
}

/** `llm-judge (llm_judge, built-in), version 2 (the entry's)`. */
function describeEvaluator(binding: BindingExplanation): string {
  const kind = binding.kind !== undefined ? ` (${binding.kind}, ${binding.origin ?? 'unknown origin'})` : '';
  const version =
    binding.version === undefined
      ? 'version unknown'
      : `version ${binding.version} (${binding.versionFrom === 'entry' ? "the entry's" : "the evaluator's"})`;
  return `${binding.type}${kind}, ${version}`;
}
