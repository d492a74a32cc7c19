/**
 * The ledger store contract. One interface, several stores (SQLite embedded, PostgreSQL later);
 * one contract test suite (`test/ledger/store-contract.ts`) runs against each.
 *
 * Durability contract: when `appendSpans` resolves, the spans survive a `kill -9` of the process.
 * The receiver acknowledges an OTLP request only after that.
 */
import type { InteractionRecord } from '../../src/model/records.ts';
import type { SpanData } from '../model/span.ts';
import type { DurableProgress, EvaluationRecord } from '../../src/model/records.ts';

export type { DurableProgress };

export interface InteractionQuery {
  agentId?: string;
  conversationId?: string;
  /** Only interactions that ended at or after this ISO-8601 time. */
  since?: string;
  /** Newest first; default 100, at most 1000. */
  limit?: number;
}

/** A late span: it arrived after the interaction it belongs to was completed. */
export interface LateSpan {
  interactionId: string;
  span: SpanData;
}

/**
 * A triggered evaluation, durable in the evaluation queue from the moment `enqueueEvaluations`
 * resolves until `recordEvaluations` records its outcome.
 */
export interface QueuedEvaluation {
  evaluationId: string;
  interactionId: string;
  evaluatorId: string;
  evaluatorVersion: string;
  agentId: string;
  /** The agent's roles on the interaction (binding resolution at run time needs them). */
  roles: string[];
  flowId?: string;
  /** ISO-8601. */
  triggeredAt: string;
  /** `interaction` when an interaction triggered it, `backfill` when `evalon backfill` did. */
  source: 'interaction' | 'backfill';
  /** Attempts started so far (0 until the first starts). Set by the store. */
  attempts: number;
  /** When the last attempt started (ISO-8601). Set by the store. */
  startedAt?: string;
  /** Queue order, assigned by the store; increases with every enqueue, never reused. */
  seq?: number;
  /** A durable evaluation's position, once its first step completed. Set by the store. */
  progress?: DurableProgress;
}

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

export interface LedgerStore {
  /** Durably stores received spans (the write-ahead path). Resolves once durable. */
  appendSpans(spans: SpanData[]): Promise<void>;

  /** Every span stored by `appendSpans` whose trace has not been released: what a restart replays. */
  loadPendingSpans(): Promise<SpanData[]>;

  /** The stored, unreleased spans of one trace. */
  loadTraceSpans(traceId: string): Promise<SpanData[]>;

  /**
   * The stored, unreleased spans of several traces at once (one round trip on a remote store), by
   * trace id, each in the order appended; a trace with none is absent.
   */
  loadSpansOfTraces(traceIds: string[]): Promise<Map<string, SpanData[]>>;

  /**
   * Records completed interactions. Idempotent per interaction id: a record already present is
   * kept as it is (a replay after a restart must not duplicate or rewrite it).
   */
  putInteractions(records: InteractionRecord[]): Promise<void>;

  /** Drops the stored spans of traces whose interactions are all decided. */
  releaseTraces(traceIds: string[]): Promise<void>;

  /** Keeps spans that arrived after their interaction completed. */
  putLateSpans(late: LateSpan[]): Promise<void>;

  getInteraction(interactionId: string): Promise<InteractionRecord | undefined>;
  listInteractions(query: InteractionQuery): Promise<InteractionRecord[]>;
  /** Ids of stored interactions among `ids` (used to tell replayed interactions from new ones). */
  existingInteractionIds(ids: string[]): Promise<Set<string>>;

  // ---- evaluations ----------------------------------------------------------------------

  /**
   * Durably queues triggered evaluations, in one transaction. An evaluation whose (interaction,
   * evaluator, evaluator version) is already queued or already recorded is left out. Resolves with
   * the evaluations queued, `seq` set.
   *
   * `intake` names the interactions whose triggers these are (possibly none of them triggered
   * anything): they are marked as taken in, in the same transaction, so that
   * `loadInteractionsAwaitingIntake` no longer returns them.
   */
  enqueueEvaluations(evaluations: QueuedEvaluation[], options?: { intake?: string[] }): Promise<QueuedEvaluation[]>;

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
   * Records outcomes and removes their evaluations from the queue, in one transaction. At most one
   * record per (interaction, evaluator, evaluator version): a record whose key is already recorded
   * is dropped. Resolves with the ids of the records written.
   */
  recordEvaluations(records: EvaluationRecord[]): Promise<string[]>;

  /** The evaluations recorded for one interaction, oldest first. */
  getEvaluations(interactionId: string): Promise<EvaluationRecord[]>;

  /** Stored interactions oldest first, in pages. */
  pageInteractions(query: InteractionPageQuery): Promise<{ records: InteractionRecord[]; nextCursor?: string }>;
  countInteractions(query: { agentId?: string; since?: string }): Promise<number>;

  /** Every agent with a stored interaction, by agent id. */
  listAgents(): Promise<AgentSummary[]>;

  // ---- replicas (optional: only a store several collectors share implements it) -------------

  /**
   * Which of `traceIds` other replicas also hold: unreleased spans they received, or interactions
   * they recorded. Only traces found elsewhere are in the map. A trace found there was split
   * across replicas (routing not by trace id, or changed while it was in flight).
   */
  tracesElsewhere?(traceIds: string[]): Promise<TracesElsewhere>;

  /**
   * Takes what this process must hold alone before it does any work: a PostgreSQL store claims its
   * replica id (failing when a live collector holds it). A store without such a claim has no method.
   */
  claimReplica?(): Promise<void>;

  close(): Promise<void>;
}

/** `tracesElsewhere`: what other replicas hold of some traces. */
export interface TracesElsewhere {
  /** This replica's id. */
  replicaId: string;
  traces: Map<string, TraceElsewhere>;
}

export interface TraceElsewhere {
  /** Replicas holding unreleased spans of the trace. */
  pendingOn: string[];
  /** Interactions of the trace other replicas recorded, in the order recorded. */
  recorded: Array<{ interactionId: string; replicaId: string }>;
}
