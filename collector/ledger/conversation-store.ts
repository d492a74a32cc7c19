/**
 * The conversation role of the ledger. A conversation is the interactions of one agent that share
 * a conversation id, keyed by (conversationId, agentId); `putInteractions` records its turns in
 * the same transaction as the interactions (core/conversation-turns.ts has the rules). This role
 * reads conversations, takes end requests, finds the conversations that are due to end (an
 * indexed query: its cost does not grow with the number of open ones), closes them as revisions,
 * and keeps the revisions until the evaluation processor has taken them in.
 *
 * Open conversations live here, not in the collector's memory. Replicas sharing the ledger share
 * them: any replica may close a due conversation (a close is conditional, so only one does), and
 * a revision is taken in by `enqueueEvaluations({ conversationIntake })` exactly once.
 */
import { EVALON_CONVERSATION_ENDED } from '../../src/model/attributes.ts';
import type {
  ConversationEndReason,
  ConversationRecord,
  ConversationWithInteractions,
  EvaluationRecord,
} from '../../src/model/records.ts';

/** Whether an interaction's attributes end its conversation (`evalon.conversation.ended = true`). */
export function endsConversation(attributes: Record<string, unknown> | undefined): boolean {
  const ended = attributes?.[EVALON_CONVERSATION_ENDED];
  return ended === true || ended === 'true';
}

/** The key of one conversation revision. */
export interface ConversationRevisionKey {
  conversationId: string;
  agentId: string;
  revision: number;
}

/** A revision that is over: what the conversation's evaluations of that revision judge. */
export interface ConversationRevision extends ConversationRevisionKey {
  /** Every interaction of the conversation up to this revision's end, in order of start time. */
  interactionIds: string[];
  /** The one that started last: the span this revision's verdicts are parented to. */
  lastInteractionId: string;
  /** The agent's roles on that interaction (bindings resolve with them). */
  roles: string[];
  /** Its last interaction failed. */
  failed: boolean;
  /** ISO-8601: the start of its first interaction. */
  startTime: string;
  /** ISO-8601: when it was over (the requested end, or its last activity plus the idle window). */
  endTime: string;
  endReason: ConversationEndReason;
  /** The order in which revisions closed (the store assigns it; backfill pages by it). */
  seq: number;
}

/** A conversation found due to end: an end was requested (and its grace is over), or it is idle. */
export interface DueConversation extends ConversationRevisionKey {
  /** Its turns when found: a close is skipped if a turn arrived since. */
  turns: number;
  endReason: ConversationEndReason;
  /** ISO-8601: when it was over. */
  endTime: string;
}

export interface ConversationQuery {
  agentId?: string;
  /** Only conversations active at or after this ISO-8601 time (their last activity). */
  since?: string;
  /** Only open conversations (true) or only those that are over (false). */
  open?: boolean;
  /** Most recently active first; default 100, at most 1000. */
  limit?: number;
}

/** `pageConversationRevisions`: revisions that are over, in the order they closed (backfill reads them all). */
export interface ConversationRevisionPageQuery {
  agentId?: string;
  /** Only revisions that ended at or after this ISO-8601 time. */
  since?: string;
  cursor?: string;
  /** Default 100, at most 1000. */
  limit?: number;
}

export interface ConversationEndRequest {
  conversationId: string;
  agentId: string;
  /** ISO-8601: the moment the conversation is over. */
  at: string;
  /** ISO-8601: the earliest it may close (a grace for turns still on their way). */
  dueAt: string;
}

export interface ConversationStore {
  /**
   * One conversation with its interactions (full records, in order of start time); undefined when
   * unknown. With `revision`, as that revision ended (its interactions, end and failure), undefined
   * when that revision is not over.
   */
  getConversation(
    conversationId: string,
    agentId: string,
    options?: { revision?: number },
  ): Promise<ConversationWithInteractions | undefined>;

  /** The agents that have a conversation with this id, sorted. */
  conversationAgents(conversationId: string): Promise<string[]>;

  listConversations(query: ConversationQuery): Promise<ConversationRecord[]>;

  /**
   * Requests the end of an open conversation: it is over at `at` and may close from `dueAt` (an
   * earlier request keeps its earlier due time). A conversation that is over already is left as
   * it is. Resolves with the conversation as it is then, undefined when unknown.
   */
  requestConversationEnd(request: ConversationEndRequest): Promise<ConversationRecord | undefined>;

  /**
   * Open conversations due to end at `now`: a requested end whose due time has come, or no activity
   * for `idleMs`. Earliest due first, at most `limit`. Reads indexes only over what is due.
   */
  findDueConversations(query: { now: string; idleMs: number; limit: number }): Promise<DueConversation[]>;

  /**
   * Closes conversations found due, each unless it changed since (another turn, another revision:
   * then it is left open), in one transaction. Each closed revision is kept, awaiting intake.
   * Resolves with the revisions closed.
   */
  closeConversations(due: DueConversation[]): Promise<ConversationRevision[]>;

  /**
   * Closed revisions not yet taken in by `enqueueEvaluations({ conversationIntake })`, in the
   * order they closed: what the evaluation processor still has to trigger.
   */
  loadConversationsAwaitingIntake(limit: number): Promise<ConversationRevision[]>;

  /** Every closed revision of one conversation, oldest first. */
  listConversationRevisions(conversationId: string, agentId: string): Promise<ConversationRevision[]>;

  /** Closed revisions in the order they closed, in pages. */
  pageConversationRevisions(
    query: ConversationRevisionPageQuery,
  ): Promise<{ revisions: ConversationRevision[]; nextCursor?: string }>;
  countConversationRevisions(query: { agentId?: string; since?: string }): Promise<number>;

  /** The evaluations recorded for one conversation, every revision's, oldest first. */
  getConversationEvaluations(conversationId: string, agentId: string): Promise<EvaluationRecord[]>;
}
