/**
 * Bridges an Agent (the evaluated participant, or a custom participant implemented in code) to the
 * runtime. It owns the agent's history and runs at most one step at a time.
 *
 * - A message in a direct conversation becomes a turn and triggers a step answering there.
 * - Observed conversation messages (`conversation_message` events) become durable turns; other
 *   events are handed to the next step only. Either triggers a step in the agent's first direct
 *   conversation.
 * - Whatever arrives during a step is absorbed and answered by a follow-up step afterwards
 *   (observed messages included: none is dropped).
 * - A step that throws, rejects, returns nothing or returns a malformed action fails the run.
 */
import type { Action, Agent, HistoryEntry, SimulationEvent, ToolInteraction } from '../agent/agent.ts';
import type { ParticipantActor, ParticipantInput, RunnerPort } from './actor.ts';
import { requestKey, type CompletionGate } from './completion-gate.ts';
import { createMailbox } from './mailbox.ts';

export const CONVERSATION_MESSAGE_EVENT = 'conversation_message';

/** One agent step, for telemetry. */
export interface AgentTurn {
  agent: string;
  respondIn: string;
  history: readonly HistoryEntry[];
  events: readonly SimulationEvent[];
  startedAt: number;
  endedAt: number;
  action?: Action;
  error?: unknown;
}

export interface AgentActorOptions {
  name: string;
  agent: Agent;
  /** Conversations whose `between` lists this participant, in scenario order. */
  directConversations: readonly string[];
  gate: CompletionGate;
  runner: RunnerPort;
  role: 'agent' | 'participant';
  onTurn?: (turn: AgentTurn) => void;
  now?: () => number;
}

type Internal =
  | ParticipantInput
  | { type: 'stepped'; respondIn: string; action: Action }
  | { type: 'step_failed'; cause: unknown };

export function createAgentActor(options: AgentActorOptions): ParticipantActor {
  const { name, agent, gate, runner } = options;
  const now = options.now ?? Date.now;
  const history: HistoryEntry[] = [];
  const pending = new Set<string>();
  let queuedEvents: SimulationEvent[] = [];
  let stepping = false;
  let steps = 0;
  let stopped = false;
  const firstDirect = options.directConversations[0];

  const mailbox = createMailbox<Internal>(handle, (error) => runner.fail(name, error, options.role));

  function handle(input: Internal): void {
    if (stopped) return;
    switch (input.type) {
      case 'message': {
        const { conversation, message } = input;
        history.push({
          type: 'turn',
          conversation,
          sender: message.sender,
          content: message.content,
          ...(message.trace !== undefined ? { trace: message.trace } : {}),
        });
        if (stepping) pending.add(conversation);
        else step(conversation, []);
        return;
      }
      case 'events': {
        const others: SimulationEvent[] = [];
        for (const event of input.events) {
          if (event.name === CONVERSATION_MESSAGE_EVENT) {
            const data = event.data;
            history.push({
              type: 'turn',
              conversation: typeof data.conversation === 'string' ? data.conversation : 'unknown',
              sender: typeof data.sender === 'string' ? data.sender : 'unknown',
              content: typeof data.content === 'string' ? data.content : '',
            });
          } else others.push(event);
        }
        if (firstDirect === undefined) return;
        if (stepping) {
          queuedEvents.push(...others);
          pending.add(firstDirect);
        } else step(firstDirect, others);
        return;
      }
      case 'stepped':
        onStepped(input.respondIn, input.action);
        return;
      case 'step_failed':
        stopped = true;
        runner.fail(name, input.cause, options.role);
        return;
    }
  }

  function step(respondIn: string, events: SimulationEvent[]): void {
    stepping = true;
    const snapshot = history.slice();
    const startedAt = now();
    const key = agent.replayable ? requestKey({ history: snapshot, events, respondIn }) : `${name}#${++steps}`;
    gate
      .run('agent', key, () => agent.step(snapshot, events, respondIn), agent.replayable === true)
      .then((result) => validateAction(result))
      .then(
        (action) => {
          if (stopped) return; // the run ended meanwhile: the turn is not part of it
          options.onTurn?.({ agent: name, respondIn, history: snapshot, events, startedAt, endedAt: now(), action });
          mailbox.post({ type: 'stepped', respondIn, action });
        },
        (cause: unknown) => {
          if (stopped) return;
          options.onTurn?.({
            agent: name,
            respondIn,
            history: snapshot,
            events,
            startedAt,
            endedAt: now(),
            error: cause,
          });
          mailbox.post({ type: 'step_failed', cause });
        },
      );
  }

  function onStepped(respondIn: string, action: Action): void {
    runner.respond(name, respondIn, action);
    if (action.type === 'send') {
      for (const interaction of action.toolInteractions)
        history.push({ type: 'tool_use', conversation: respondIn, interaction });
      if (action.message.content !== '') {
        history.push({
          type: 'turn',
          conversation: respondIn,
          sender: name,
          content: action.message.content,
          ...(action.message.trace !== undefined ? { trace: action.message.trace } : {}),
        });
      }
      if (action.endAfter) runner.respond(name, respondIn, { type: 'end' });
    }
    stepping = false;
    const next = [...pending][0];
    if (next !== undefined) {
      pending.delete(next);
      const events = queuedEvents;
      queuedEvents = [];
      step(next, events);
      return;
    }
    if (queuedEvents.length > 0 && firstDirect !== undefined) {
      const events = queuedEvents;
      queuedEvents = [];
      step(firstDirect, events);
    }
  }

  return {
    name,
    post: (input) => mailbox.post(input),
    stop() {
      stopped = true;
      mailbox.close();
    },
  };
}

/** Checks what an agent returned; anything unusable is a step failure. */
export function validateAction(value: unknown): Action {
  if (value === null || value === undefined) throw new TypeError('the agent step returned no action');
  if (typeof value !== 'object') throw new TypeError(`the agent step returned a ${typeof value}, not an action`);
  const action = value as Partial<Action> & Record<string, unknown>;
  if (action.type === 'end') return { type: 'end' };
  if (action.type !== 'send')
    throw new TypeError(
      `the agent step returned an action of unknown type ${JSON.stringify(action.type)} (expected send or end)`,
    );
  const message = action.message as unknown;
  if (
    typeof message !== 'object' ||
    message === null ||
    typeof (message as { content?: unknown }).content !== 'string'
  ) {
    throw new TypeError('the agent step returned a send action without message.content as a string');
  }
  const interactions = (action.toolInteractions ?? []) as unknown;
  if (!Array.isArray(interactions) || !interactions.every(isInteraction)) {
    throw new TypeError('the agent step returned toolInteractions that are not {call, result} pairs');
  }
  const { sender, content, trace } = message as { sender?: unknown; content: string; trace?: unknown };
  return {
    type: 'send',
    message: {
      sender: typeof sender === 'string' ? sender : '',
      content,
      ...(trace !== undefined ? { trace: trace as never } : {}),
    },
    toolInteractions: interactions,
    ...(action.endAfter === true ? { endAfter: true } : {}),
  };
}

function isInteraction(value: unknown): value is ToolInteraction {
  if (typeof value !== 'object' || value === null) return false;
  const { call, result } = value as { call?: { toolName?: unknown }; result?: { toolName?: unknown } };
  return typeof call?.toolName === 'string' && typeof result?.toolName === 'string';
}
