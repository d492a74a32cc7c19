/**
 * When a conversation is over, as a policy over the ledger (conversations live there, not in
 * memory): each check asks the store for the conversations due to end — a requested end whose
 * grace is over, or no turn for `conversation_idle` after the last one completed — leaves those
 * with a turn still being assembled in this collector (the assembler knows the conversation id of
 * pending invocations), closes the others as revisions, and hands the revisions to the evaluation
 * processor. Time is an argument; the interactions processor calls it after recording a turn that
 * ends its conversation, and every `scanMs` otherwise.
 *
 * Recording a turn can close a revision too (a turn that started after its conversation's
 * requested end closes that revision as it opens the next: core/conversation-turns.ts), so a check
 * that follows an ending turn always tells the next stage, which takes in every revision the
 * ledger holds awaiting intake.
 *
 * Across replicas the pending check is this replica's own: a turn still being assembled on another
 * replica when a conversation closes becomes the next revision (docs/conversations.md).
 */
import type { ConversationRevision, ConversationStore } from '../../ledger/conversation-store.ts';
import type { Logger } from '../../logger.ts';

/** Due conversations read per query; a check reads a few pages at most, the next check goes on. */
export const DUE_PAGE = 500;
const MAX_PAGES_PER_CHECK = 8;

export interface ConversationsConsumer {
  /**
   * Told that conversations are over: `revisions` closed by this check, and maybe others closed
   * with the turns just recorded. The consumer takes in every revision awaiting intake.
   */
  consumeConversations(revisions: ConversationRevision[]): Promise<void>;
}

export interface ConversationTrackerStats {
  /** Revisions closed by this collector, by why they ended. */
  closedExplicit: number;
  closedIdle: number;
  /** Due at the last check but left open: a turn of theirs was still being assembled here. */
  waitingForTurns: number;
}

export interface ConversationTracker {
  /**
   * Closes what is due at `now` and hands the revisions on; with `turnEnded` (a turn that ends its
   * conversation was just recorded) the next stage is told even when this check closed nothing.
   */
  check(now: number, options?: { turnEnded?: boolean }): Promise<void>;
  readonly stats: ConversationTrackerStats;
}

export function createConversationTracker(options: {
  store: Pick<ConversationStore, 'findDueConversations' | 'closeConversations'>;
  idleMs: number;
  /** Whether a turn of the conversation is still being assembled in this collector. */
  isPending(conversationId: string): boolean;
  next?: ConversationsConsumer;
  logger: Logger;
}): ConversationTracker {
  const { store, idleMs, isPending, next } = options;
  const stats: ConversationTrackerStats = { closedExplicit: 0, closedIdle: 0, waitingForTurns: 0 };
  return {
    stats,
    async check(now, checkOptions = {}) {
      const at = new Date(now).toISOString();
      let waiting = 0;
      const handedOn: ConversationRevision[] = [];
      for (let page = 0; page < MAX_PAGES_PER_CHECK; page++) {
        const due = await store.findDueConversations({ now: at, idleMs, limit: DUE_PAGE });
        const ready = due.filter((conversation) => !isPending(conversation.conversationId));
        waiting += due.length - ready.length;
        const closed = ready.length > 0 ? await store.closeConversations(ready) : [];
        for (const revision of closed) {
          if (revision.endReason === 'idle') stats.closedIdle++;
          else stats.closedExplicit++;
        }
        handedOn.push(...closed);
        // A page of only waiting (or changed) conversations would be read again: the next check will.
        if (due.length < DUE_PAGE || closed.length === 0) break;
      }
      stats.waitingForTurns = waiting;
      if (next && (handedOn.length > 0 || checkOptions.turnEnded)) await next.consumeConversations(handedOn);
    },
  };
}
