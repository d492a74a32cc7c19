/**
 * The evaluation queue role of the ledger: triggered evaluations, durable from the moment they are
 * queued until their outcome is recorded; the intake mark (which interactions had their triggers
 * decided); attempts, leases and durable progress while they run. The evaluation processor,
 * runtime and backfill use it. Recorded outcomes are read through `RecordedEvaluations`.
 */
import type { DurableProgress, EvaluationRecord, InteractionRecord } from '../../src/model/records.ts';
import type { ConversationRevisionKey } from './conversation-store.ts';

export type { DurableProgress };

/**
 * A conversation revision under evaluation. Its evaluation's `interactionId` is the revision's
 * last interaction (the span its verdict is parented to).
 */
export interface QueuedConversationSubject extends ConversationRevisionKey {
  kind: 'conversation';
  /** Every interaction of the conversation up to the revision's end, in order of start time. */
  interactionIds: string[];
}

/**
 * A triggered evaluation, durable in the evaluation queue from the moment `enqueueEvaluations`
 * resolves until `recordEvaluations` records its outcome.
 */
export interface QueuedEvaluation {
  evaluationId: string;
  /** The interaction evaluated; for a conversation, the revision's last interaction. */
  interactionId: string;
  /** What is evaluated when it is not that one interaction: a conversation revision. */
  subject?: QueuedConversationSubject;
  evaluatorId: string;
  evaluatorVersion: string;
  agentId: string;
  /** The agent's roles on the interaction (binding resolution at run time needs them). */
  roles: string[];
  flowId?: string;
  /** ISO-8601. */
  triggeredAt: string;
  /**
   * `interaction` when an interaction triggered it, `conversation` when a conversation that is over
   * did, `backfill` when `evalon backfill` did.
   */
  source: 'interaction' | 'conversation' | 'backfill';
  /** Attempts started so far (0 until the first starts). Set by the store. */
  attempts: number;
  /** When the last attempt started (ISO-8601). Set by the store. */
  startedAt?: string;
  /** Queue order, assigned by the store; increases with every enqueue, never reused. */
  seq?: number;
  /** A durable evaluation's position, once its first step completed. Set by the store. */
  progress?: DurableProgress;
  /** Why it was queued, when not by a binding's trigger: routed from another entry's outcome. */
  cause?: EvaluationCause;
  /** A signal delivered to it (evaluation-waits.ts). Set by the store. */
  signal?: DeliveredSignal;
}

/** A signal delivered to a queued evaluation (evaluation-waits.ts). */
export interface DeliveredSignal {
  signal: string;
  payload: unknown;
  /** ISO-8601. */
  receivedAt: string;
}

/**
 * Why an evaluation was queued besides its binding: `routed` after another evaluator entry
 * recorded a matching outcome for the same subject (`after`, `when`, `score_below`).
 */
export type EvaluationCause = {
  kind: 'routed';
  /** The entry whose outcome routed it. */
  after: string;
  /** That entry's record. */
  record: EvaluationRecord;
};

export interface EvaluationStart {
  /** The queued evaluation's `seq`. */
  seq: number;
  /** ISO-8601. */
  startedAt: string;
}

/**
 * A collector's claim on queued evaluations it started: until `until` passes, no other owner can
 * start them. Replicas sharing one ledger take their work this way; the owner renews the leases of
 * what it runs, and a replica that dies leaves leases that expire, so another resumes its work.
 */
export interface EvaluationLease {
  /** Unique to one running collector process. */
  owner: string;
  /** ISO-8601. */
  until: string;
}

export interface EvaluationQueue {
  /**
   * Durably queues triggered evaluations, in one transaction. An evaluation whose (subject,
   * evaluator, evaluator version) is already queued or already recorded is left out — the subject
   * being the interaction, or the conversation revision (conversation id, agent id, revision).
   * Resolves with the evaluations queued, `seq` set.
   *
   * `intake` names the interactions whose triggers these are (possibly none of them triggered
   * anything): they are marked as taken in, in the same transaction, so that
   * `loadInteractionsAwaitingIntake` no longer returns them. `conversationIntake` does the same
   * for closed conversation revisions (`loadConversationsAwaitingIntake`).
   */
  enqueueEvaluations(
    evaluations: QueuedEvaluation[],
    options?: { intake?: string[]; conversationIntake?: ConversationRevisionKey[] },
  ): Promise<QueuedEvaluation[]>;

  /**
   * Interactions recorded after the last one taken in by `enqueueEvaluations({ intake })`, in the
   * order they were recorded: what a collector that stopped between recording an interaction and
   * queuing its evaluations still has to trigger. A new ledger starts with none awaiting.
   */
  loadInteractionsAwaitingIntake(limit: number): Promise<InteractionRecord[]>;

  /**
   * Queued evaluations in queue order, after `afterSeq` when given; default limit 1000. With
   * `claimableBy`, only those that owner could start at that time (no lease, an expired one, or its own).
   */
  loadQueuedEvaluations(options?: {
    afterSeq?: number;
    limit?: number;
    claimableBy?: { owner: string; at: string };
  }): Promise<QueuedEvaluation[]>;
  countQueuedEvaluations(): Promise<number>;

  /**
   * Starts evaluations (before they run): counts an attempt of each, so attempts survive a restart,
   * and takes `lease` on it. An evaluation is started only if it is still queued and no other owner
   * holds an unexpired lease on it (without `lease`: no unexpired lease at all; the start's time
   * is the time compared). Resolves with the seqs started, in one transaction.
   */
  startEvaluations(starts: EvaluationStart[], lease?: EvaluationLease): Promise<number[]>;

  /** Extends `lease` to the given seqs it still holds; resolves with those (a lost one was expired and taken). */
  renewEvaluationLeases(lease: EvaluationLease, seqs: number[]): Promise<number[]>;

  /** Gives up `owner`'s leases on the given seqs (a collector stopping), so another can start them at once. */
  releaseEvaluationLeases(owner: string, seqs: number[]): Promise<void>;

  /**
   * Saves durable evaluations' progress, in one transaction, replacing what was saved before. An
   * update for an evaluation no longer queued (its outcome recorded) is ignored. The progress is
   * returned by `loadQueuedEvaluations` until the outcome is recorded.
   */
  saveEvaluationProgress(updates: { seq: number; progress: DurableProgress }[]): Promise<void>;

  /**
   * Removes queued evaluations that never started (no attempt counted) and that no other owner
   * leases at `at`, without recording an outcome: evaluations their entry's token budget did not
   * let start. Their keys are free again, so a backfill can queue them anew. Resolves with the
   * seqs removed, in one transaction.
   */
  dropEvaluations(seqs: number[], options: { at: string; owner?: string }): Promise<number[]>;

  /**
   * Records outcomes and removes their evaluations from the queue, in one transaction. At most one
   * record per (subject, evaluator, evaluator version): a record whose key is already recorded is
   * dropped. Resolves with the ids of the records written. A review's status follows its
   * evaluation's record in the same transaction (review-store.ts).
   */
  recordEvaluations(records: EvaluationRecord[]): Promise<string[]>;

  /**
   * `recordEvaluations`, and in the same transaction the evaluations routed from these records
   * (`followUps`, each naming its record in `cause.record`): a follow-up is queued when the record
   * it follows is written by this call, and skipped, as by `enqueueEvaluations`, when its key is
   * queued or recorded already. A routed evaluation is so never lost between its cause's record and
   * its queuing. Resolves with the records written and the follow-ups queued (`seq` set).
   */
  recordEvaluationsWithFollowUps(
    records: EvaluationRecord[],
    followUps: QueuedEvaluation[],
  ): Promise<{ written: string[]; queued: QueuedEvaluation[] }>;
}
