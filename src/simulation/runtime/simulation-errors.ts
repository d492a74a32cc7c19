/** Failures that end a simulation early, each carrying the partial transcript recorded so far. */
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';

/** A simulated participant or an event source failed (its model call failed, threw or returned nothing). */
export class SimulationFailedError extends Error {
  readonly participant: string;
  readonly partialTranscript: JudgeTranscriptEntry[];
  constructor(participant: string, cause: unknown, partialTranscript: JudgeTranscriptEntry[]) {
    super(`simulation participant "${participant}" failed: ${messageOf(cause)}`, { cause });
    this.name = 'SimulationFailedError';
    this.participant = participant;
    this.partialTranscript = partialTranscript;
  }
}

/** The evaluated agent's step failed: it threw, rejected, or returned no valid action. */
export class AgentStepFailedError extends Error {
  readonly participant: string;
  readonly partialTranscript: JudgeTranscriptEntry[];
  constructor(participant: string, cause: unknown, partialTranscript: JudgeTranscriptEntry[]) {
    super(`evaluated agent "${participant}" step failed during simulation: ${messageOf(cause)}`, { cause });
    this.name = 'AgentStepFailedError';
    this.participant = participant;
    this.partialTranscript = partialTranscript;
  }
}

/** The simulation ran longer than its time limit. */
export class SimulationTimeoutError extends Error {
  readonly partialTranscript: JudgeTranscriptEntry[];
  constructor(timeoutMs: number, partialTranscript: JudgeTranscriptEntry[]) {
    super(`simulation: did not finish within ${timeoutMs} ms (raise the timeout, or lower max_turns)`);
    this.name = 'SimulationTimeoutError';
    this.partialTranscript = partialTranscript;
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
