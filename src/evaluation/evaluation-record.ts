/**
 * `EvaluationRecord`: one recorded evaluation in the ledger (spec §4). These are the JSON names
 * the HTTP API (`GET /api/v1/interactions/{id}/evaluations`) returns.
 *
 * Every evaluation ends in exactly one of three outcomes: a verdict, inconclusive, or failed.
 * At most one record exists per (interaction, evaluator, evaluator version).
 */
import type { EvaluationData } from './evaluation.ts';

export type EvaluationOutcome =
  | { type: 'verdict'; evaluation: EvaluationData }
  | { type: 'inconclusive'; reason: string }
  /**
   * `error` is the message; `errorType` the error's name (`MissingConfigPropertyError`, `TimeoutError`…);
   * `attributes` what the evaluator reported before failing (a judge's token usage, for one).
   */
  | { type: 'failed'; error: string; errorType?: string; attributes?: Record<string, string | number | boolean> };

export type EvaluationOutcomeType = EvaluationOutcome['type'];

export interface EvaluationRecord {
  evaluationId: string;
  interactionId: string;
  evaluatorId: string;
  evaluatorVersion: string;
  /** The evaluator entry's `control-id`, when it sets one. */
  controlId?: string;
  agentId: string;
  outcome: EvaluationOutcome;
  /** When the interaction triggered the evaluation (ISO-8601). */
  triggeredAt: string;
  /** When the attempt that recorded the outcome started. */
  startedAt: string;
  completedAt: string;
  /** Attempts started, this one included (more than 1 after a restart mid-evaluation). */
  attempts: number;
}
