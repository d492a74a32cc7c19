/**
 * The retention role of the ledger: what the pruner (`collector/retention/`) and `evalon ledger
 * prune` need to keep the ledger within its age and size: its size, the units it may prune (oldest
 * first), pruning them, the evaluations kept past their subjects, giving space back, and the
 * tombstones the API answers 410 from.
 *
 * **The unit of pruning** is an interaction that is no conversation's turn, or a conversation
 * with all its turns: a conversation is kept or pruned whole. A unit goes with everything of it
 * (the record with its transcript, its late spans, a conversation's turns and revisions) in one
 * transaction, so a crash never leaves half of one.
 *
 * **Never pruned: what is in use.** A store checks, in the transaction that prunes a unit, that
 * none of it is in use, and keeps it otherwise:
 * - an interaction whose trace has pending spans (still being assembled), or whose trace holds an
 *   interaction not yet taken in by the evaluation processor, or one with a queued (or running)
 *   evaluation;
 * - an interaction whose trace holds a conversation turn still recorded (a sub-agent's interaction
 *   inside a turn goes after its conversation);
 * - a conversation that is open, has a revision awaiting intake or a queued evaluation of any
 *   revision, or whose turns are in use as above.
 * Open human reviews are the review store's to answer (`OpenReviewCheck`); the pruner asks it
 * before it hands units to `pruneUnits` (whose queue check covers them too: a review's evaluation
 * stays queued, parked, until its verdict is recorded).
 *
 * **Evaluations.** Without `keepEvaluations`, a unit's evaluation records go with it, and its closed
 * human reviews (the review queue's rows of its subjects). With it, they stay, and so does a
 * tombstone: a row naming a pruned interaction that has evaluations or reviews (its agent, end and
 * when it was pruned), or, for a conversation with its own, its conversation row marked pruned
 * (its revision count names its evaluations). `pruneEvaluations` removes them later, with the
 * tombstones.
 */

import type { ReviewedSubject, ReviewStore } from './review-store.ts';

/** What the `evalon.ledger.pruned` counter's `kind` names, and what a dry run counts. */
export const PRUNED_KINDS = ['interactions', 'late_spans', 'conversations', 'evaluations', 'reviews'] as const;
export type PrunedKind = (typeof PRUNED_KINDS)[number];

/** Rows removed (or, in a dry run, that would be) and their stored bytes, by kind. */
export type PruneTally = Record<PrunedKind, { count: number; bytes: number }>;

export function emptyTally(): PruneTally {
  return {
    interactions: { count: 0, bytes: 0 },
    late_spans: { count: 0, bytes: 0 },
    conversations: { count: 0, bytes: 0 },
    evaluations: { count: 0, bytes: 0 },
    reviews: { count: 0, bytes: 0 },
  };
}

/** Adds `more` into `into` and returns it. */
export function addTally(into: PruneTally, more: PruneTally): PruneTally {
  for (const kind of PRUNED_KINDS) {
    into[kind].count += more[kind].count;
    into[kind].bytes += more[kind].bytes;
  }
  return into;
}

export function tallyBytes(tally: PruneTally): number {
  return PRUNED_KINDS.reduce((sum, kind) => sum + tally[kind].bytes, 0);
}

/**
 * The ledger's size. `usedBytes` is what its data occupies, the figure `max_size` bounds;
 * `freeBytes` is space it holds without using it (SQLite's free pages not yet given back,
 * PostgreSQL's free and dead space): the two add up to what it takes on disk.
 */
export interface LedgerSize {
  usedBytes: number;
  freeBytes: number;
}

/** A unit the pruner removes whole (see the header). `endTime` (ISO-8601) orders them, oldest first. */
export type PruneUnit =
  | { kind: 'interaction'; interactionId: string; agentId: string; endTime: string }
  | {
      kind: 'conversation';
      conversationId: string;
      agentId: string;
      /** Its last activity: the latest turn end, or end request. */
      endTime: string;
      /** Its turns' interactions. */
      interactionIds: string[];
    };

export interface PrunableQuery {
  /** Only units that ended before this ISO-8601 time (the age cutoff); without it, any, oldest first. */
  before?: string;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  /** At most this many units. */
  limit: number;
}

export interface PruneOptions {
  /** ISO-8601: the time of the pruning (a tombstone's `prunedAt`). */
  at: string;
  /** Evaluations outlive their subject (retention `keep_evaluations`), with a tombstone. */
  keepEvaluations: boolean;
  /** Counts what would go, and removes nothing. */
  dryRun?: boolean;
}

export interface PruneResult {
  /** The units pruned (in a dry run: that would be). */
  pruned: PruneUnit[];
  /** The units found in use, and kept. */
  kept: PruneUnit[];
  /** The units not looked at, for lack of time in this transaction: hand them over again. */
  deferred: PruneUnit[];
  tally: PruneTally;
}

/** What is left of an interaction pruned while its evaluations are kept. */
export interface PrunedInteraction {
  interactionId: string;
  traceId: string;
  agentId: string;
  /** ISO-8601. */
  endTime: string;
  /** ISO-8601. */
  prunedAt: string;
}

/** What is left of a conversation whose turns were pruned while its evaluations are kept. */
export interface PrunedConversation {
  conversationId: string;
  agentId: string;
  /** Its revisions (its evaluations are those of revisions 1 to this). */
  revision: number;
  /** ISO-8601: its last activity. */
  lastActivity: string;
  /** ISO-8601. */
  prunedAt: string;
}

/** A subject the pruner asks the review store about. */
export type RetainedSubject = ReviewedSubject;

/**
 * The review store's hook (`ReviewStore.isUnderOpenReview`): a subject under an open human review
 * is never pruned. The pruner asks it about every unit (a conversation, and each of its turns)
 * before pruning it; the service hands it the ledger store itself.
 */
export type OpenReviewCheck = Pick<ReviewStore, 'isUnderOpenReview'>;

/** Held by the one process pruning a ledger at a time (replicas sharing PostgreSQL take turns). */
export interface PruningLock {
  release(): Promise<void>;
}

export interface LedgerRetention {
  /** The ledger's size now (reflecting this store's own prunes at once). */
  measureLedgerSize(): Promise<LedgerSize>;

  /**
   * Units the pruner may consider, oldest first (by end time, then id), in pages; whether each is
   * in use is decided by `pruneUnits`. A conversation is a unit once it is over (not open).
   */
  findPrunable(query: PrunableQuery): Promise<{ units: PruneUnit[]; nextCursor?: string }>;

  /**
   * Prunes the given units, in one transaction, each only if none of it is in use then (see the
   * header): in use, it is kept and reported. A unit already gone is neither pruned nor kept.
   */
  pruneUnits(units: PruneUnit[], options: PruneOptions): Promise<PruneResult>;

  /**
   * Removes kept evaluations with their tombstones: those whose subject ended before `before`
   * (ISO-8601), or, without it, the oldest. At most `limit` subjects, in one transaction.
   */
  pruneEvaluations(query: {
    before?: string;
    limit: number;
    dryRun?: boolean;
  }): Promise<{ subjects: number; tally: PruneTally }>;

  /**
   * Gives space pruning freed back to the file system, in one step of at most `maxBytes` (SQLite:
   * incremental vacuum), keeping `keepFreeBytes` free for new data (default none). `incremental`
   * is false when the store cannot do it: PostgreSQL (autovacuum makes the space reusable), or an
   * SQLite file created without incremental vacuum.
   */
  reclaimSpace(query: { maxBytes: number; keepFreeBytes?: number }): Promise<{ bytes: number; incremental: boolean }>;

  /**
   * SQLite only: rewrites the ledger file (VACUUM) with incremental vacuum on, giving every free
   * page back at once, so that later prunes give space back in steps. Needs the ledger to itself
   * (no collector on it) and free disk for a copy of the file: `evalon ledger prune` runs it once
   * on a file created before incremental vacuum.
   */
  compactLedger?(): Promise<{ beforeBytes: number; afterBytes: number }>;

  /** Takes the ledger's pruning lock, or resolves undefined when another process holds it. */
  lockPruning(): Promise<PruningLock | undefined>;

  /** The tombstone of an interaction pruned while its evaluations are kept. */
  getPrunedInteraction(interactionId: string): Promise<PrunedInteraction | undefined>;

  /** The tombstone of a conversation pruned while its evaluations are kept. */
  getPrunedConversation(conversationId: string, agentId: string): Promise<PrunedConversation | undefined>;
}
