/**
 * `EvaluationContext`: what `evaluate` receives. It identifies what to assess (the subject: one
 * interaction, or a whole conversation) and gives the evaluation id, the configuration and the
 * ledger.
 */
import type { EvaluationRecord } from '../model/records.ts';
import type { EvaluatorConfig } from './evaluator-config.ts';
import type { LedgerClient } from './ledger-client.ts';

/** What an evaluator can judge: one interaction, or a whole conversation. */
export type SubjectKind = 'interaction' | 'conversation';

/** One interaction under evaluation. */
export interface InteractionSubject {
  readonly kind: 'interaction';
  interactionId: string;
  /** The agent's id, the key bindings use. */
  agentId: string;
  /** The enclosing interaction's id, when the agent ran inside another agent's interaction. */
  flowId?: string;
}

/**
 * A conversation under evaluation: the interactions of one agent that share a conversation id, up
 * to the end of one revision. Read them with `ledger.getConversation(conversationId, agentId)` or
 * one by one (`interactionIds`).
 */
export interface ConversationSubject {
  readonly kind: 'conversation';
  conversationId: string;
  agentId: string;
  /** 1 for the first time the conversation was over, 2 after it resumed and was over again, … */
  revision: number;
  /** Its interactions up to the revision's end, in order of start time. */
  interactionIds: readonly string[];
  /**
   * The last of them (the one that started last): what an evaluator written for one interaction
   * reads, and the span the verdict is parented to.
   */
  interactionId: string;
}

export type Subject = InteractionSubject | ConversationSubject;

export const Subject = {
  /** `Subject.interaction('interaction-1', 'support-agent')`, the subject of one interaction. */
  interaction(interactionId: string, agentId: string, flowId?: string): InteractionSubject {
    return flowId === undefined
      ? { kind: 'interaction', interactionId, agentId }
      : { kind: 'interaction', interactionId, agentId, flowId };
  },
  /**
   * `Subject.conversation('conv-1', 'support-agent', [id1, id2, id3])`, a conversation's revision
   * (1 by default) made of these interactions, in order.
   */
  conversation(
    conversationId: string,
    agentId: string,
    interactionIds: readonly string[],
    revision = 1,
  ): ConversationSubject {
    if (interactionIds.length === 0) {
      throw new TypeError(`Subject.conversation(${JSON.stringify(conversationId)}): a conversation has interactions`);
    }
    return {
      kind: 'conversation',
      conversationId,
      agentId,
      revision,
      interactionIds: [...interactionIds],
      interactionId: interactionIds[interactionIds.length - 1],
    };
  },
};

/**
 * Why the evaluation runs: a binding triggered it (the subject was sampled, or evaluated in full),
 * or it was routed after another evaluator entry recorded an outcome for the same subject
 * (`after`, `when`, `score_below` on the entry), that entry's `record` given.
 */
export type EvaluationTrigger = { kind: 'binding' } | { kind: 'routed'; after: string; record: EvaluationRecord };

export interface EvaluationContext {
  readonly subject: Subject;
  /** Unique per evaluation and stable across its retries: derive judge session ids from it. */
  readonly evaluationId: string;
  /** The evaluator's id. */
  readonly evaluatorId: string;
  /**
   * The binding used for the agent, with the evaluator entry as fallback (see `EvaluatorConfig`).
   * A durable evaluator's steps each get it resolved afresh from the running configuration.
   */
  config(): EvaluatorConfig;
  readonly ledger: LedgerClient;
  /**
   * Aborted when the evaluation times out or the collector stops (in a durable evaluator's step,
   * also at the step timeout): pass it to fetches and SDK calls.
   */
  readonly signal: AbortSignal;
  /** Why it runs; absent where nothing says (a test kit): read it as `{ kind: 'binding' }`. */
  readonly trigger?: EvaluationTrigger;
}
