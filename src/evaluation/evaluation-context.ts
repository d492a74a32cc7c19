/**
 * `EvaluationContext`: what `evaluate` receives. It identifies the interaction to assess (the
 * subject) and gives the evaluation id, the configuration and the ledger.
 */
import type { EvaluationRecord } from '../model/records.ts';
import type { EvaluatorConfig } from './evaluator-config.ts';
import type { LedgerClient } from './ledger-client.ts';

/** The interaction under evaluation. */
export interface Subject {
  interactionId: string;
  /** The agent's id, the key bindings use. */
  agentId: string;
  /** The enclosing interaction's id, when the agent ran inside another agent's interaction. */
  flowId?: string;
}

export const Subject = {
  /** `Subject.interaction('interaction-1', 'support-agent')`, the subject of one interaction. */
  interaction(interactionId: string, agentId: string, flowId?: string): Subject {
    return flowId === undefined ? { interactionId, agentId } : { interactionId, agentId, flowId };
  },
};

/**
 * Why the evaluation runs: a binding triggered it (the subject was sampled, or evaluated in full),
 * or it was routed after another evaluator entry recorded an outcome for the same subject
 * (`after`, `when`, `score_below` on the entry), that entry's `record` given.
 */
export type EvaluationTrigger = { kind: 'binding' } | { kind: 'routed'; after: string; record: EvaluationRecord };

export interface EvaluationContext {
  readonly subject: Subject;
  /** Unique per evaluation and stable across its retries: derive judge session ids from it. */
  readonly evaluationId: string;
  /** The evaluator's id. */
  readonly evaluatorId: string;
  /**
   * The binding used for the agent, with the evaluator entry as fallback (see `EvaluatorConfig`).
   * A durable evaluator's steps each get it resolved afresh from the running configuration.
   */
  config(): EvaluatorConfig;
  readonly ledger: LedgerClient;
  /**
   * Aborted when the evaluation times out or the collector stops (in a durable evaluator's step,
   * also at the step timeout): pass it to fetches and SDK calls.
   */
  readonly signal: AbortSignal;
  /** Why it runs; absent where nothing says (a test kit): read it as `{ kind: 'binding' }`. */
  readonly trigger?: EvaluationTrigger;
}
