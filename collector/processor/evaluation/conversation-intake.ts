/**
 * The evaluations a closed conversation revision triggers: for each evaluator entry, the binding
 * resolved for the agent and the roles of the revision's last interaction, when it triggers on
 * conversations (enabled, trigger-on-failure, sampling by the conversation's key). A conversation
 * whose last interaction happened inside an evaluation is never evaluated (loop safety).
 */
import type { ConversationRevision } from '../../ledger/conversation-store.ts';
import type { QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { InteractionRecord } from '../../../src/model/records.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import { isInsideEvaluation } from './loop-safety.ts';
import { conversationTriggerVerdict, queuedConversationEvaluation, type BindingTable } from './triggers.ts';

/** What the processor counts while taking conversations in. */
export interface ConversationIntakeCounters {
  insideEvaluation: number;
  notSampled: number;
  failedNotTriggered: number;
}

export async function conversationEvaluations(
  revisions: readonly ConversationRevision[],
  options: {
    bindings: BindingTable;
    registry: EvaluatorRegistry;
    triggeredAt: string;
    /** Finds an interaction (the last one, and those it is nested in, for loop safety). */
    lookup(interactionId: string): Promise<InteractionRecord | undefined>;
    counters: ConversationIntakeCounters;
    /** `conversation` for revisions that just closed, `backfill` for `evalon backfill --conversations`. */
    source?: QueuedEvaluation['source'];
    /** Only this evaluator's (backfill). */
    evaluatorId?: string;
    /** Recorded as the version (backfill); default each entry's `version`, else its evaluator's. */
    version?: string;
  },
): Promise<QueuedEvaluation[]> {
  const { bindings, registry, counters } = options;
  const evaluations: QueuedEvaluation[] = [];
  for (const revision of revisions) {
    const last = await options.lookup(revision.lastInteractionId);
    if (last && (await isInsideEvaluation(last, options.lookup))) {
      counters.insideEvaluation++;
      continue;
    }
    for (const binding of bindings.resolve({ agentId: revision.agentId, roles: revision.roles })) {
      if (options.evaluatorId !== undefined && binding.evaluatorId !== options.evaluatorId) continue;
      const verdict = conversationTriggerVerdict(revision, binding);
      if (verdict === 'not-sampled') counters.notSampled++;
      else if (verdict === 'failed-interaction') counters.failedNotTriggered++;
      if (verdict !== 'triggered') continue;
      const definition = registry.get(binding.evaluatorId);
      if (!definition) continue; // startup checks every configured entry's type; nothing to run
      evaluations.push(
        queuedConversationEvaluation(
          revision,
          binding.evaluatorId,
          // The entry's own version, else the evaluator's (backfill: the version it records under).
          options.version ?? binding.version ?? definition.version,
          options.triggeredAt,
          options.source ?? 'conversation',
        ),
      );
    }
  }
  return evaluations;
}
