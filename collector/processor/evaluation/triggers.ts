/**
 * Which evaluations an interaction, or a conversation that is over, triggers: for each evaluator
 * entry, the binding resolved for the agent and its roles (a binding triggers on interactions or
 * on conversations, as its `trigger` says), then the trigger rules — the binding is enabled, the
 * subject did not fail (unless `trigger-on-failure`; a conversation fails when its last
 * interaction did), and it is sampled at the binding's ratio (an interaction by its trace id, a
 * conversation by its key, so its revisions agree). Loop safety is checked by the caller.
 *
 * Resolutions are cached per (agent, roles): at 1,000 interactions/s the same few agents recur.
 */
import { randomUUID } from 'node:crypto';
import type { EvaluationDefaultsConfig, EvaluatorEntryConfig } from '../../config/evalon-config.ts';
import type { ConversationRevision } from '../../ledger/conversation-store.ts';
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import { resolveBinding, type AgentIdentity, type ResolvedBinding } from './binding-resolution.ts';
import { routeOf } from './route.ts';
import { isConversationSampled, isSampled } from './sampling.ts';

export type TriggerVerdict = 'triggered' | 'disabled' | 'failed-interaction' | 'not-sampled' | 'routed';

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

/** Whether `binding` triggers its evaluator for `record` (a binding on conversations never does). */
export function triggerVerdict(
  record: Pick<InteractionRecord, 'traceId' | 'failed'>,
  binding: ResolvedBinding,
): TriggerVerdict | 'other-trigger' {
  if (binding.trigger !== 'interaction') return 'other-trigger';
  if (!binding.enabled) return 'disabled';
  if (routeOf(binding.config)) return 'routed';
  if (record.failed && !binding.triggerOnFailure) return 'failed-interaction';
  return isSampled(record.traceId, binding.samplingRatio) ? 'triggered' : 'not-sampled';
}

/** Whether `binding` triggers its evaluator for a conversation revision that is over. */
export function conversationTriggerVerdict(
  revision: Pick<ConversationRevision, 'conversationId' | 'agentId' | 'failed'>,
  binding: ResolvedBinding,
): TriggerVerdict | 'other-trigger' {
  if (binding.trigger !== 'conversation') return 'other-trigger';
  if (!binding.enabled) return 'disabled';
  if (routeOf(binding.config)) return 'routed';
  if (revision.failed && !binding.triggerOnFailure) return 'failed-interaction';
  return isConversationSampled(revision.conversationId, revision.agentId, binding.samplingRatio)
    ? 'triggered'
    : 'not-sampled';
}

/** The evaluation of a conversation revision: its `interactionId` is the revision's last interaction. */
export function queuedConversationEvaluation(
  revision: ConversationRevision,
  evaluatorId: string,
  evaluatorVersion: string,
  triggeredAt: string,
  source: QueuedEvaluation['source'],
): QueuedEvaluation {
  return {
    evaluationId: randomUUID(),
    interactionId: revision.lastInteractionId,
    subject: {
      kind: 'conversation',
      conversationId: revision.conversationId,
      agentId: revision.agentId,
      revision: revision.revision,
      interactionIds: [...revision.interactionIds],
    },
    evaluatorId,
    evaluatorVersion,
    agentId: revision.agentId,
    roles: [...revision.roles],
    triggeredAt,
    source,
    attempts: 0,
  };
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
