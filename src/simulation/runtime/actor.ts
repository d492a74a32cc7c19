/** What actors receive from the runner, and the port through which they answer it. */
import type { TranscriptEntry } from '../../judge/transcript.ts';
import type { Action, Message, SimulationEvent } from '../agent/agent.ts';

export type ParticipantInput =
  | { type: 'message'; conversation: string; message: Message }
  | { type: 'events'; events: SimulationEvent[] };

export interface ParticipantActor {
  readonly name: string;
  post(input: ParticipantInput): void;
  stop(): void;
}

export interface EventSourceActor {
  readonly name: string;
  /** A new transcript entry (a message) the source may react to. */
  post(entry: TranscriptEntry): void;
  stop(): void;
}

export interface RunnerPort {
  respond(participant: string, conversation: string, action: Action): void;
  emit(source: string, events: SimulationEvent[]): void;
  /** `agent`: the evaluated agent (AgentStepFailedError); otherwise a participant or event source. */
  fail(participant: string, cause: unknown, role: 'participant' | 'agent' | 'event_source'): void;
}
