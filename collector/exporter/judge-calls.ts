/**
 * Where an LLM judge's model calls go to become spans (spec §5: "a judge's model calls are
 * children of this span"). Judges are evaluator definitions built once per process, not by the
 * service, so the exporters register a sink here when they start and remove it at shutdown; a
 * judge reports each call with `emitJudgeCall`, which does nothing when no sink is registered
 * (no traces pipeline exports to `otlphttp`, or no collector runs: the evaluator test kit).
 *
 * One sink receives the calls: the latest registered. Two collectors in one process would send
 * their judges' calls to the one started last (tests start one at a time; `resetJudgeCallSinks`
 * clears the registry between them).
 */
import type { ModelCallReport } from '../../src/judge/observed-model-client.ts';

/** Which evaluation made the call, and the trace it belongs to (the evaluated interaction's). */
export interface JudgeCallTrace {
  /** The interaction's trace id (32 hex). */
  traceId: string;
  evaluationId: string;
  evaluatorId: string;
}

export type JudgeCall = JudgeCallTrace & ModelCallReport;

export type JudgeCallSink = (call: JudgeCall) => void;

const sinks: JudgeCallSink[] = [];

/** Registers `sink` as the receiver of judge calls; the returned function removes it (safe twice). */
export function registerJudgeCallSink(sink: JudgeCallSink): () => void {
  sinks.push(sink);
  return () => {
    const index = sinks.lastIndexOf(sink);
    if (index >= 0) sinks.splice(index, 1);
  };
}

/** Hands a judge's model call to the registered sink, if any. Never throws. */
export function emitJudgeCall(call: JudgeCall): void {
  const sink = sinks.at(-1);
  if (!sink) return;
  try {
    sink(call);
  } catch {
    // Telemetry never fails the judge.
  }
}

/** Tests: forgets every registered sink. */
export function resetJudgeCallSinks(): void {
  sinks.length = 0;
}
