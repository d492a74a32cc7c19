/** What actors receive from the runner, and the port through which they answer it. */
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';
import type { Action, SimulationMessage, SimulationEvent } from '../agent/agent.ts';

export type ParticipantInput =
  | { type: 'message'; conversation: string; message: SimulationMessage }
  | { type: 'events'; events: SimulationEvent[] };

export interface ParticipantActor {
  readonly name: string;
  post(input: ParticipantInput): void;
  stop(): void;
}

export interface EventSourceActor {
  readonly name: string;
  /** A new transcript entry (a message) the source may react to. */
  post(entry: JudgeTranscriptEntry): void;
  stop(): void;
}

export interface RunnerPort {
  respond(participant: string, conversation: string, action: Action): void;
  emit(source: string, events: SimulationEvent[]): void;
  /** `agent`: the evaluated agent (AgentStepFailedError); otherwise a participant or event source. */
  fail(participant: string, cause: unknown, role: 'participant' | 'agent' | 'event_source'): void;
}
