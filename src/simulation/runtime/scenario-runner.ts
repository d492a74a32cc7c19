/**
 * The scenario runner: spawns one actor per participant and event source, kicks off the
 * conversations that have an initiator, routes every message to the direct participants of its
 * conversation, notifies observers, feeds event sources, and records the transcript.
 *
 * The run ends when any participant sends [END] (or the agent ends), when one conversation reaches
 * 2 × max_turns non-empty messages, or when nothing is left in flight (stalled). A failing
 * participant, event source or agent step ends it at once with an error carrying the partial
 * transcript.
 */
import type { ModelClient } from '../../judge/model-client.ts';
import type { JudgeTranscriptEntry } from '../../judge/transcript.ts';
import type { Action, Agent, SimulationEvent } from '../agent/agent.ts';
import type { Scenario } from '../scenario/scenario.ts';
import { evaluatedParticipant } from '../scenario/scenario.ts';
import type { EventSourceActor, ParticipantActor, RunnerPort } from './actor.ts';
import { createAgentActor, CONVERSATION_MESSAGE_EVENT, type AgentTurn } from './agent-actor.ts';
import type { CompletionGate } from './completion-gate.ts';
import { createEventSource, type CustomEventSource } from './event-source.ts';
import { createMailbox } from './mailbox.ts';
import { createScriptedParticipant } from './scripted-participant.ts';
import { createSimulatedParticipant } from './simulated-participant.ts';
import { AgentStepFailedError, SimulationFailedError, SimulationTimeoutError } from './simulation-errors.ts';
import { actorRandom } from './thinking-delay.ts';

export const DEFAULT_SIMULATION_TIMEOUT_MS = 10 * 60_000;
export const START_MESSAGE = 'The conversation is starting. Please begin.';

export type EndReason =
  | { type: 'end'; participant: string; conversation: string }
  | { type: 'max_turns'; conversation: string }
  /** Nothing was left in flight and nobody could act any more. */
  | { type: 'stalled' };

export interface SimulationOutcome {
  transcript: JudgeTranscriptEntry[];
  endReason: EndReason;
}

export interface SimulationOptions {
  scenario: Scenario;
  /** The evaluated participant. */
  agent: Agent;
  /** The run's gated model client (simulated participants and event sources). */
  model: ModelClient;
  gate: CompletionGate;
  /** Seeds thinking delays (default 0). */
  seed?: number;
  /** Apply response_speed delays (default true). */
  thinkingDelays?: boolean;
  timeoutMs?: number;
  /** Custom participants implemented in code; a custom participant without one is role-played. */
  customParticipants?: Record<string, Agent>;
  /** Implementations of `type: custom` event sources. */
  eventSources?: Record<string, CustomEventSource>;
  /** Called for every transcript entry, synchronously and in order. */
  onEntry?: (entry: JudgeTranscriptEntry) => void;
  onAgentTurn?: (turn: AgentTurn) => void;
  /** Model for participants and event sources (the client's default otherwise). */
  modelName?: string;
}

type RunnerInput =
  | { type: 'respond'; participant: string; conversation: string; action: Action }
  | { type: 'emit'; source: string; events: SimulationEvent[] }
  | { type: 'fail'; participant: string; cause: unknown; role: 'participant' | 'agent' | 'event_source' };

export function runSimulation(options: SimulationOptions): Promise<SimulationOutcome> {
  const { scenario, gate } = options;
  const agentName = evaluatedParticipant(scenario).name;
  const transcript: JudgeTranscriptEntry[] = [];
  const counts = new Map<string, number>();
  const actors = new Map<string, ParticipantActor>();
  const sources: EventSourceActor[] = [];
  let finished = false;
  let settleOutcome: (outcome: SimulationOutcome) => void = () => {};
  let failOutcome: (error: unknown) => void = () => {};
  const done = new Promise<SimulationOutcome>((resolve, reject) => {
    settleOutcome = resolve;
    failOutcome = reject;
  });

  const directOf = (name: string) => scenario.conversations.filter((c) => c.between.includes(name)).map((c) => c.name);
  const observersOf = (target: string) =>
    scenario.observations.filter((o) => o.observes.includes(target)).map((o) => o.participant);

  const inbox = createMailbox<RunnerInput>(handle, (error) => finish(undefined, error));
  const port: RunnerPort = {
    respond: (participant, conversation, action) => inbox.post({ type: 'respond', participant, conversation, action }),
    emit: (source, events) => inbox.post({ type: 'emit', source, events }),
    fail: (participant, cause, role) => inbox.post({ type: 'fail', participant, cause, role }),
  };

  function record(entry: JudgeTranscriptEntry): void {
    transcript.push(entry);
    options.onEntry?.(entry);
  }

  function handle(input: RunnerInput): void {
    if (finished) return;
    if (input.type === 'fail') {
      const partial = transcript.slice();
      const error =
        input.role === 'agent'
          ? new AgentStepFailedError(input.participant, input.cause, partial)
          : new SimulationFailedError(input.participant, input.cause, partial);
      finish(undefined, error);
      return;
    }
    if (input.type === 'emit') {
      for (const event of input.events) record({ type: 'event', name: event.name, data: event.data });
      for (const observer of observersOf(input.source))
        actors.get(observer)?.post({ type: 'events', events: input.events });
      return;
    }
    const { participant, conversation, action } = input;
    if (action.type === 'end') {
      record({ conversation, type: 'message', sender: participant, content: '[END]' });
      finish({ type: 'end', participant, conversation });
      return;
    }
    for (const { call, result } of action.toolInteractions) {
      record({ conversation, type: 'tool_call', tool: call.toolName, arguments: call.arguments });
      record({
        conversation,
        type: 'tool_result',
        tool: result.toolName,
        arguments: result.arguments,
        result: result.result ?? null,
        ...(result.error !== undefined ? { error: result.error } : {}),
      });
    }
    const { content, trace } = action.message;
    if (content === '') return; // silence: not recorded, delivered or counted
    const message = trace === undefined ? { sender: participant, content } : { sender: participant, content, trace };
    const entry: JudgeTranscriptEntry = { conversation, type: 'message', ...message };
    record(entry);
    for (const member of scenario.conversations.find((c) => c.name === conversation)?.between ?? []) {
      if (member !== participant) actors.get(member)?.post({ type: 'message', conversation, message });
    }
    const observed: SimulationEvent = {
      name: CONVERSATION_MESSAGE_EVENT,
      data: { conversation, sender: participant, content },
    };
    for (const observer of observersOf(conversation)) {
      if (observer !== participant) actors.get(observer)?.post({ type: 'events', events: [observed] });
    }
    for (const source of sources) source.post(entry);
    const count = (counts.get(conversation) ?? 0) + 1;
    counts.set(conversation, count);
    if (count >= scenario.maxTurns * 2) finish({ type: 'max_turns', conversation });
  }

  const timeoutMs = options.timeoutMs ?? DEFAULT_SIMULATION_TIMEOUT_MS;
  const timeout = setTimeout(
    () => finish(undefined, new SimulationTimeoutError(timeoutMs, transcript.slice())),
    timeoutMs,
  );

  function finish(endReason: EndReason | undefined, error?: unknown): void {
    if (finished) return;
    finished = true;
    clearTimeout(timeout);
    gate.onQuiet(undefined);
    gate.onDivergence(undefined);
    inbox.close();
    for (const actor of actors.values()) actor.stop();
    for (const source of sources) source.stop();
    if (error !== undefined || endReason === undefined) failOutcome(error);
    else settleOutcome({ transcript: transcript.slice(), endReason });
  }

  try {
    const seed = options.seed ?? 0;
    for (const participant of scenario.participants) {
      const direct = directOf(participant.name);
      const custom = participant.type === 'custom' ? options.customParticipants?.[participant.name] : undefined;
      if (participant.name === agentName || custom) {
        const agent = participant.name === agentName ? options.agent : custom!;
        const role = participant.name === agentName ? 'agent' : 'participant';
        actors.set(
          participant.name,
          createAgentActor({
            name: participant.name,
            agent,
            directConversations: direct,
            gate,
            runner: port,
            role,
            ...(role === 'agent' && options.onAgentTurn ? { onTurn: options.onAgentTurn } : {}),
          }),
        );
      } else if (participant.type === 'scripted') {
        actors.set(participant.name, createScriptedParticipant({ participant, runner: port }));
      } else {
        actors.set(
          participant.name,
          createSimulatedParticipant({
            participant,
            scenario,
            model: options.model,
            gate,
            runner: port,
            random: actorRandom(seed, participant.name),
            thinkingDelays: options.thinkingDelays ?? true,
            ...(options.modelName ? { modelName: options.modelName } : {}),
          }),
        );
      }
    }
    for (const source of scenario.eventSources) {
      const custom = options.eventSources?.[source.name];
      if (source.type === 'custom' && !custom) {
        throw new Error(
          `event_sources.${source.name}: type custom needs an ` +
            `implementation (pass it in the run options' eventSources)`,
        );
      }
      sources.push(
        createEventSource({
          source,
          gate,
          runner: port,
          model: options.model,
          ...(custom ? { custom } : {}),
          ...(options.modelName ? { modelName: options.modelName } : {}),
        }),
      );
    }
    gate.onQuiet(() => finish({ type: 'stalled' }));
    gate.onDivergence((error) => finish(undefined, error));
    for (const conversation of scenario.conversations) {
      if (conversation.initiatedBy === undefined) continue;
      actors.get(conversation.initiatedBy)?.post({
        type: 'message',
        conversation: conversation.name,
        message: { sender: 'system', content: START_MESSAGE },
      });
    }
    gate.checkQuietSoon();
  } catch (error) {
    finish(undefined, error);
  }
  return done;
}
