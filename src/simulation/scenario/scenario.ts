/** A loaded scenario: the scenario file's YAML in camelCase, validated, with defaults applied. */
import type { Criterion } from '../../judge/criterion.ts';
import type { JsonObject, JsonValue } from '../../judge/json-value.ts';

export type ParticipantType = 'simulated' | 'evaluated' | 'custom' | 'scripted';
export type ResponseSpeed = 'fast' | 'medium' | 'slow';

export interface Participant {
  name: string;
  /**
   * simulated: an LLM role-player; evaluated: the agent under test; custom: user code (or, with
   * none given, role-played); scripted: sends `messages` as written, one per turn.
   */
  type: ParticipantType;
  persona: string;
  goal: string;
  /** Replaces the default role-play prompt of a simulated participant; the [END] rule is still appended. */
  template?: string;
  /** Evaluated only: base URL of a remote agent speaking POST /v1/step. */
  endpoint?: string;
  /** Thinking delay before a simulated participant answers (none when unset). */
  responseSpeed?: ResponseSpeed;
  /** Scripted only: what it sends, in order, one message per turn (never empty). */
  messages?: string[];
  /** Evaluated only: the in-process agent's system prompt (instead of the direct or assist prompt). */
  systemPrompt?: string;
  /** Evaluated only: the in-process agent's model (instead of the run's model). */
  model?: string;
  /** Evaluated only: the in-process agent's tools; absent means every built-in tool, `[]` none. */
  tools?: ToolSpec[];
}

/** One tool of the in-process agent, as the scenario declares it. */
export type ToolSpec = BuiltInToolSpec | RecordedToolSpec;

/** A built-in mock tool, by name (it acts on the run's context). */
export interface BuiltInToolSpec {
  source: 'builtin';
  name: string;
}

/** A tool that answers calls with recorded results: the result recorded for equal arguments. */
export interface RecordedToolSpec {
  source: 'recorded';
  name: string;
  description: string;
  /** JSON schema of the arguments, as the model is shown it. */
  inputSchema: JsonObject;
  /** At least one; several for the same arguments are returned in order, the last one repeated. */
  recordings: ToolRecording[];
}

/** One recorded call: its arguments and what it returned, or the error it failed with. */
export type ToolRecording = { arguments: JsonObject } & ({ result: JsonValue } | { error: string });

export interface Conversation {
  name: string;
  between: string[];
  /** This participant receives a start message when the simulation begins. */
  initiatedBy?: string;
}

export interface Observation {
  participant: string;
  /** Conversation or event source names. */
  observes: string[];
}

export interface EventSchema {
  event: string;
  /** Field name → type description (free text, shown to the event source). */
  schema: Record<string, string>;
}

export interface EventSourceSpec {
  name: string;
  /** simulated: LLM-driven; custom: implemented in code (RunOptions.eventSources). */
  type: 'simulated' | 'custom';
  description: string;
  emits: EventSchema[];
  className?: string;
}

/** A deterministic assertion on the final context (τ-bench style), scored as a criterion. */
export interface ContextExpectation {
  name: string;
  /** Keys from the context root, e.g. ['bookings', 'HTL-9012', 'status']. */
  path: string[];
  /** The value must deep-equal this. */
  equals?: JsonValue;
  /** The value must contain this: object keys recursively, array elements, or a substring. */
  includes?: JsonValue;
  /** true: nothing may exist at the path; false: something must. */
  absent?: boolean;
  weight: number;
}

export interface Scenario {
  name: string;
  description: string;
  participants: Participant[];
  conversations: Conversation[];
  observations: Observation[];
  eventSources: EventSourceSpec[];
  /** Shared ground truth the tools act on and the judge reads. */
  context: JsonObject;
  /** A conversation ends the run after 2 × maxTurns non-empty messages. */
  maxTurns: number;
  evalPromptTemplate?: string;
  /** Tokens each judge request may take (the judge's default, 100,000, when absent). */
  evalMaxInputTokens?: number;
  evalCriteria: Criterion[];
  expectContext: ContextExpectation[];
  /** The file it was loaded from, when it was. */
  sourcePath?: string;
}

export const DEFAULT_MAX_TURNS = 20;

/** The evaluated participant (validation guarantees exactly one). */
export function evaluatedParticipant(scenario: Scenario): Participant {
  const agent = scenario.participants.find((participant) => participant.type === 'evaluated');
  if (!agent) throw new Error(`${scenario.name}: no evaluated participant`);
  return agent;
}

export function participantNamed(scenario: Scenario, name: string): Participant | undefined {
  return scenario.participants.find((participant) => participant.name === name);
}
