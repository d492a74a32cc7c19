/**
 * How an LLM judge tells its collector about the model calls it makes: the evaluation runtime
 * creates each evaluator with a `JudgeCallRecorder` next to the ledger (`create({ ledger,
 * judgeCalls })`), and the judge reports every call to it, naming its evaluation and the
 * evaluated interaction's trace. The recorder belongs to one runtime, so two collectors in one
 * process each get their own judges' calls. Without one (the evaluator test kit, a collector
 * exporting no traces) nothing is reported; the judge runs the same.
 */
import type { EvaluatorDependencies } from '../../src/evaluation/evaluator.ts';
import type { CircuitBreakers } from '../../src/judge/circuit-breaker.ts';
import type { ModelCallReport } from '../../src/judge/observed-model-client.ts';

/** Which evaluation made the call, and the trace it belongs to (the evaluated interaction's). */
export interface JudgeCallTrace {
  /** The interaction's trace id (32 hex). */
  traceId: string;
  evaluationId: string;
  evaluatorId: string;
}

export type JudgeCall = JudgeCallTrace & ModelCallReport;

export interface JudgeCallRecorder {
  /** The time the calls are stamped with: the runtime's clock, which also times the evaluation. */
  now(): number;
  /** Takes one settled model call. Never throws (telemetry never fails the judge). */
  record(call: JudgeCall): void;
}

/**
 * What the collector's runtime gives `create`: the ledger, where judges report their model calls,
 * and the collector's circuit breakers in front of the judge models (one registry per runtime).
 */
export interface JudgeDependencies extends EvaluatorDependencies {
  judgeCalls?: JudgeCallRecorder;
  circuitBreakers?: CircuitBreakers;
}

/** The recorder among `create`'s dependencies, if the runtime gave one. */
export function judgeCallsOf(dependencies: EvaluatorDependencies): JudgeCallRecorder | undefined {
  return (dependencies as JudgeDependencies).judgeCalls;
}

/** The circuit breakers among `create`'s dependencies, if the runtime gave them. */
export function circuitBreakersOf(dependencies: EvaluatorDependencies): CircuitBreakers | undefined {
  return (dependencies as JudgeDependencies).circuitBreakers;
}
