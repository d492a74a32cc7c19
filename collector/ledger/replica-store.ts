/**
 * The replica role of the ledger: what one collector process must hold alone (its replica id on a
 * shared PostgreSQL ledger, the SQLite file's lock), and what other replicas sharing the ledger
 * hold of some traces (split-trace detection, `processor/interactions/split-traces.ts`). Both
 * methods are optional: a store without such a claim, or not shared, has none.
 */

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

export interface ReplicaStore {
  /**
   * Takes what this process must hold alone before it does any work: a PostgreSQL store claims its
   * replica id (failing when a live collector holds it), the SQLite store its file's lock.
   */
  claimReplica?(): Promise<void>;

  /**
   * Which of `traceIds` other replicas also hold: unreleased spans they received, or interactions
   * they recorded. Only traces found elsewhere are in the map. A trace found there was split
   * across replicas (routing not by trace id, or changed while it was in flight). Only a store
   * several collectors share implements it.
   */
  tracesElsewhere?(traceIds: string[]): Promise<TracesElsewhere>;
}
