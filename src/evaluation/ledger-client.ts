/**
 * `LedgerClient`: what an evaluator reads the ledger through. The
 * collector gives each evaluation one backed by its ledger store; tests use `TestLedgerClient`
 * from `evalon/testing`.
 */
import type { ConversationWithInteractions, EvaluationRecord, InteractionRecord } from '../model/records.ts';

export interface InteractionQuery {
  agentId?: string;
  conversationId?: string;
  /** Only interactions that ended at or after this time (ISO-8601, or a Date). */
  since?: string | Date;
  /** Newest first; default 100, at most 1000. */
  limit?: number;
}

export interface LedgerClient {
  /** The record of one interaction; rejects with `InteractionNotFoundError` when the ledger has none. */
  getInteraction(interactionId: string): Promise<InteractionRecord>;
  /** The record of one interaction, or undefined. */
  findInteraction(interactionId: string): Promise<InteractionRecord | undefined>;
  /** The evaluations recorded for one interaction, oldest first. */
  getEvaluations(interactionId: string): Promise<EvaluationRecord[]>;
  /** Interactions by agent, conversation and time, newest first. */
  listInteractions(query?: InteractionQuery): Promise<InteractionRecord[]>;
  /**
   * One conversation (the interactions of `agentId` with this conversation id) with its
   * interactions, full records in order of start time. With `revision`, as that revision ended
   * (a conversation subject's `revision`: later turns left out). Rejects with
   * `ConversationNotFoundError` when the ledger has none.
   */
  getConversation(
    conversationId: string,
    agentId: string,
    options?: { revision?: number },
  ): Promise<ConversationWithInteractions>;
}
