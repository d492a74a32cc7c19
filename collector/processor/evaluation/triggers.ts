/**
 * Which evaluations an interaction triggers: for each evaluator entry, the binding resolved for
 * the interaction's agent and roles, then the trigger rules — the binding is enabled, the
 * interaction did not fail (unless `trigger-on-failure`), and it is sampled at the binding's
 * ratio. Loop safety is checked by the caller, once per interaction.
 *
 * Resolutions are cached per (agent, roles): at 1,000 interactions/s the same few agents recur.
 */
import { randomUUID } from 'node:crypto';
import type { EvaluationDefaultsConfig, EvaluatorEntryConfig } from '../../config/evalon-config.ts';
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { resolveBinding, type AgentIdentity, type ResolvedBinding } from './binding-resolution.ts';
import { isSampled } from './sampling.ts';

export type TriggerVerdict = 'triggered' | 'disabled' | 'failed-interaction' | 'not-sampled';

/** Resolutions kept before the cache is cleared (agents × role sets seen). */
const MAX_CACHED_AGENTS = 10_000;

export interface BindingTable {
  /** Every evaluator's resolved binding for the agent, in configuration order. */
  resolve(agent: AgentIdentity): ResolvedBinding[];
}

export function createBindingTable(
  evaluators: Record<string, EvaluatorEntryConfig>,
  defaults: EvaluationDefaultsConfig,
): BindingTable {
  const cache = new Map<string, ResolvedBinding[]>();
  return {
    resolve(agent) {
      const key = `${agent.agentId}\u0000${agent.roles.join('\u0001')}`;
      let resolved = cache.get(key);
      if (!resolved) {
        resolved = Object.entries(evaluators).map(([id, entry]) => resolveBinding(id, entry, defaults, agent));
        if (cache.size >= MAX_CACHED_AGENTS) cache.clear();
        cache.set(key, resolved);
      }
      return resolved;
    },
  };
}

/** Whether `binding` triggers its evaluator for `record`. */
export function triggerVerdict(
  record: Pick<InteractionRecord, 'traceId' | 'failed'>,
  binding: ResolvedBinding,
): TriggerVerdict {
  if (!binding.enabled) return 'disabled';
  if (record.failed && !binding.triggerOnFailure) return 'failed-interaction';
  return isSampled(record.traceId, binding.samplingRatio) ? 'triggered' : 'not-sampled';
}

export function queuedEvaluation(
  record: InteractionRecord,
  evaluatorId: string,
  evaluatorVersion: string,
  triggeredAt: string,
  source: QueuedEvaluation['source'],
): QueuedEvaluation {
  const queued: QueuedEvaluation = {
    evaluationId: randomUUID(),
    interactionId: record.interactionId,
    evaluatorId,
    evaluatorVersion,
    agentId: record.agentId,
    roles: [...(record.roles ?? [])],
    triggeredAt,
    source,
    attempts: 0,
  };
  if (record.flowId !== undefined) queued.flowId = record.flowId;
  return queued;
}
