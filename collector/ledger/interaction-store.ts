/**
 * The interaction role of the ledger: completed interactions, recorded once each, and the reads
 * of them (by id, newest first with filters, in pages oldest first, counts, the agents seen). The
 * interactions processor records them; the HTTP API, the evaluation runtime, backfill and
 * `evalon explain` read them.
 */
import type { InteractionRecord } from '../../src/model/records.ts';
import type { InteractionPageQuery, InteractionQuery } from './interaction-query.ts';
import type { InteractionRow } from './core/rows.ts';

/**
 * A record encoded for the ledger: its JSON and the columns queries use, checked (`encodeInteraction`,
 * which throws LedgerStoreError naming the field at fault). Encoding needs no store, so it can run
 * on another thread than the writes.
 */
export type EncodedInteraction = InteractionRow;
export { interactionRow as encodeInteraction } from './core/rows.ts';
/** Compresses encoded rows' records for a store that `compressesRecords` (core/record-codec.ts). */
export { deflateRecords } from './core/record-codec.ts';

export type { InteractionPageQuery, InteractionQuery } from './interaction-query.ts';

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
   * Whether the store keeps records compressed (`deflateRecords`: the PostgreSQL store). An encoder
   * on another thread may then compress them there, as `row.deflated`; the store compresses rows
   * that come without.
   */
  readonly compressesRecords: boolean;

  /**
   * Records completed interactions. Idempotent per interaction id: a record already present is
   * kept as it is (a replay after a restart must not duplicate or rewrite it). In the same
   * transaction, each new record with a conversation id (and no enclosing interaction) is recorded
   * as a turn of its conversation (`ConversationStore`, core/conversation-turns.ts). Resolves with
   * the ids this call stored, new to the ledger (one statement: no other writer can claim them too).
   * Calls take effect in call order, also one made before the previous has resolved: its records
   * are recorded (and paged, and their turns applied) after the previous call's.
   */
  putInteractions(records: InteractionRecord[]): Promise<Set<string>>;

  /**
   * `putInteractions` with records already encoded (`encodeInteraction`). A row's JSON as bytes in a
   * buffer its caller owns outright (`markOwned`) may be moved elsewhere while it is written: read
   * `row.json` again once this resolves or rejects, not before.
   */
  putEncodedInteractions(rows: EncodedInteraction[]): Promise<Set<string>>;

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
