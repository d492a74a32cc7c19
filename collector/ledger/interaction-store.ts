/**
 * The interaction role of the ledger: completed interactions, recorded once each, and the reads
 * of them (by id, newest first with filters, in pages oldest first, counts, the agents seen). The
 * interactions processor records them; the HTTP API, the evaluation runtime, backfill and
 * `evalon explain` read them.
 */
import type { InteractionRecord } from '../../src/model/records.ts';

export interface InteractionQuery {
  agentId?: string;
  conversationId?: string;
  /** Only interactions that ended at or after this ISO-8601 time. */
  since?: string;
  /** Newest first; default 100, at most 1000. */
  limit?: number;
}

/** `pageInteractions`: stored interactions oldest first, in pages (backfill reads them all). */
export interface InteractionPageQuery {
  agentId?: string;
  /** Only interactions that ended at or after this ISO-8601 time. */
  since?: string;
  /** From the previous page's `nextCursor`; absent for the first page. */
  cursor?: string;
  /** Default 100, at most 1000. */
  limit?: number;
}

/** An agent the ledger has seen: `evalon explain` shows the bindings of each. */
export interface AgentSummary {
  agentId: string;
  /** The roles on its newest interaction. */
  roles: string[];
  interactions: number;
  /** End time of its newest interaction (ISO-8601). */
  lastSeen: string;
}

export interface InteractionStore {
  /**
   * Records completed interactions. Idempotent per interaction id: a record already present is
   * kept as it is (a replay after a restart must not duplicate or rewrite it). In the same
   * transaction, each new record with a conversation id (and no enclosing interaction) is recorded
   * as a turn of its conversation (`ConversationStore`, core/conversation-turns.ts). Resolves with
   * the ids this call stored, new to the ledger (one statement: no other writer can claim them too).
   */
  putInteractions(records: InteractionRecord[]): Promise<Set<string>>;

  getInteraction(interactionId: string): Promise<InteractionRecord | undefined>;
  listInteractions(query: InteractionQuery): Promise<InteractionRecord[]>;
  /** Ids of stored interactions among `ids` (used to tell replayed interactions from new ones). */
  existingInteractionIds(ids: string[]): Promise<Set<string>>;

  /** Stored interactions oldest first, in pages. */
  pageInteractions(query: InteractionPageQuery): Promise<{ records: InteractionRecord[]; nextCursor?: string }>;
  countInteractions(query: { agentId?: string; since?: string }): Promise<number>;

  /** Every agent with a stored interaction, by agent id. */
  listAgents(): Promise<AgentSummary[]>;
}
