/**
 * How a recorded interaction changes its conversation, the same in both stores: written once
 * here, as pure functions over a conversation's row, and applied by each store inside the
 * transaction that records the interaction (so a turn is never recorded without its conversation,
 * and a replayed interaction, which is not recorded again, never counts twice).
 *
 * The rules (docs/conversations.md):
 * - an interaction with a conversation id, not nested in another agent's interaction, is a turn
 *   of the conversation (conversationId, agentId); others belong to none;
 * - the first turn opens revision 1; a turn of a conversation that is over (closed) reopens it as
 *   the next revision;
 * - a turn carrying `evalon.conversation.ended = true` requests the end: the conversation is over
 *   at that turn's end (it is closed, and evaluated, once every turn is recorded);
 * - a turn that starts after a requested end, or in its millisecond (a new message after
 *   "goodbye"), closes the revision that was ended, then opens the next one with itself: the ended
 *   revision keeps its verdict;
 * - the conversation's last interaction is the turn that started last; its failure, roles and id
 *   are the conversation's.
 */
import type { ConversationEndReason, InteractionRecord } from '../../../src/model/records.ts';
import { endsConversation } from '../conversation-store.ts';
import { parseIsoTime } from '../interaction-query.ts';

/** One turn, as the store writes it (derived from the interaction record by `conversationTurnOf`). */
export interface TurnRow {
  conversationId: string;
  agentId: string;
  interactionId: string;
  startMs: number;
  endMs: number;
  failed: boolean;
  /** The turn carries `evalon.conversation.ended = true`. */
  ended: boolean;
  roles: string[];
}

/** A conversation's row: the current revision (open, or the last one that ended) and its aggregates. */
export interface ConversationState {
  conversationId: string;
  agentId: string;
  revision: number;
  open: boolean;
  startMs: number;
  /** The turn that started last: its start, id, failure and roles. */
  lastStartMs: number;
  lastInteractionId: string;
  lastFailed: boolean;
  lastRoles: string[];
  /** The latest turn end (or end request, when later). */
  lastActivityMs: number;
  turns: number;
  /** When an end was requested for the open revision: the moment the conversation is over. */
  endRequestedMs: number | null;
  /** When the requested end may close it (after the API's grace); null without an end request. */
  endDueMs: number | null;
  /** When the last closed revision ended, and why; null while a revision is open. */
  endTimeMs: number | null;
  endReason: ConversationEndReason | null;
}

/** A revision that is over: written once when it closes, then taken in by the evaluation processor. */
export interface RevisionRow {
  conversationId: string;
  agentId: string;
  revision: number;
  startMs: number;
  endMs: number;
  endReason: ConversationEndReason;
  turns: number;
  lastInteractionId: string;
  lastFailed: boolean;
  lastRoles: string[];
}

/** The turn `record` is, or undefined when it belongs to no conversation. */
export function conversationTurnOf(record: InteractionRecord): TurnRow | undefined {
  const conversationId = record.conversationId;
  // Nested agent calls stay inside the interaction that made them.
  if (typeof conversationId !== 'string' || conversationId === '' || record.flowId !== undefined) return undefined;
  const endMs = parseIsoTime(record.endTime);
  if (endMs === undefined) return undefined; // the record's own check names the bad endTime
  const startMs = parseIsoTime(record.startTime) ?? endMs;
  return {
    conversationId,
    agentId: record.agentId,
    interactionId: record.interactionId,
    startMs,
    endMs,
    failed: record.failed === true,
    ended: endsConversation(record.attributes),
    roles: Array.isArray(record.roles) ? record.roles.filter((role) => typeof role === 'string') : [],
  };
}

/** A conversation's key as one string: its id and its agent's (a map key of the stores' writes). */
export const conversationKey = (key: { conversationId: string; agentId: string }) =>
  `${key.conversationId}\u0000${key.agentId}`;

/**
 * Turns recorded together are applied in order of start time (then id), whatever order the batch
 * holds them in: a turn that ends its conversation is applied before the turns that started
 * after it, which then open the next revision.
 */
export function inStartOrder(turns: readonly TurnRow[]): TurnRow[] {
  return [...turns].sort((a, b) =>
    a.startMs !== b.startMs ? a.startMs - b.startMs : a.interactionId < b.interactionId ? -1 : 1,
  );
}

export interface AppliedTurn {
  state: ConversationState;
  /** The revision the turn joined. */
  revision: number;
  /** The revision the turn closed (it started after that revision's requested end). */
  closed?: RevisionRow;
}

/** The conversation after `turn`; `state` is its row before (undefined for a new conversation). */
export function applyTurn(state: ConversationState | undefined, turn: TurnRow): AppliedTurn {
  if (!state) {
    const fresh: ConversationState = {
      conversationId: turn.conversationId,
      agentId: turn.agentId,
      revision: 1,
      open: true,
      startMs: turn.startMs,
      lastStartMs: turn.startMs,
      lastInteractionId: turn.interactionId,
      lastFailed: turn.failed,
      lastRoles: turn.roles,
      lastActivityMs: turn.endMs,
      turns: 1,
      endRequestedMs: turn.ended ? turn.endMs : null,
      endDueMs: turn.ended ? turn.endMs : null,
      endTimeMs: null,
      endReason: null,
    };
    return { state: fresh, revision: 1 };
  }
  let next: ConversationState = { ...state };
  let closed: RevisionRow | undefined;
  if (!next.open) {
    next = reopened(next);
  } else if (next.endRequestedMs !== null && turn.startMs >= next.endRequestedMs) {
    // At or after the end (times are milliseconds: the next turn often starts in the same one).
    closed = revisionOf(next, next.endRequestedMs, 'explicit');
    next = reopened(next);
  }
  next.turns += 1;
  next.startMs = Math.min(next.startMs, turn.startMs);
  if (
    turn.startMs > next.lastStartMs ||
    (turn.startMs === next.lastStartMs && turn.interactionId > next.lastInteractionId)
  ) {
    next.lastStartMs = turn.startMs;
    next.lastInteractionId = turn.interactionId;
    next.lastFailed = turn.failed;
    next.lastRoles = turn.roles;
  }
  next.lastActivityMs = Math.max(next.lastActivityMs, turn.endMs);
  if (turn.ended) {
    next.endRequestedMs = Math.max(next.endRequestedMs ?? turn.endMs, turn.endMs);
    // An ending turn is over as soon as it is recorded: due now, or earlier than a pending grace.
    next.endDueMs = Math.min(next.endDueMs ?? turn.endMs, turn.endMs);
  }
  return closed ? { state: next, revision: next.revision, closed } : { state: next, revision: next.revision };
}

/** The revision `state` closes as, over at `endMs` for `reason`. */
export function revisionOf(state: ConversationState, endMs: number, reason: ConversationEndReason): RevisionRow {
  return {
    conversationId: state.conversationId,
    agentId: state.agentId,
    revision: state.revision,
    startMs: state.startMs,
    endMs,
    endReason: reason,
    turns: state.turns,
    lastInteractionId: state.lastInteractionId,
    lastFailed: state.lastFailed,
    lastRoles: state.lastRoles,
  };
}

/** `state` closed at `endMs` for `reason` (the row as it stays until a turn reopens it). */
export function closedState(state: ConversationState, endMs: number, reason: ConversationEndReason): ConversationState {
  return { ...state, open: false, endRequestedMs: null, endDueMs: null, endTimeMs: endMs, endReason: reason };
}

function reopened(state: ConversationState): ConversationState {
  return {
    ...state,
    revision: state.revision + 1,
    open: true,
    endRequestedMs: null,
    endDueMs: null,
    endTimeMs: null,
    endReason: null,
  };
}
