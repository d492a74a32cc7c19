/**
 * A simulated participant: an LLM role-player that drives itself. States: idle → thinking (the
 * response_speed delay) → generating (one model call in flight). It keeps its own memory of every
 * conversation it is in.
 *
 * The accumulation rule: a message that arrives while thinking is added and restarts the delay; one
 * that arrives while generating is added and answered afterwards (in the same conversation too:
 * none is dropped). After answering, it answers the next conversation with unanswered
 * messages; if none, it may follow up proactively once in a conversation where it spoke last and
 * that it has not tried this cycle (the model can decline with [NO_QUESTION]); else it goes idle.
 * Observed events are ignored: only messages drive a participant. `model` must be the run's gated
 * client.
 */
import type { ModelClient } from '../../judge/model-client.ts';
import { responseText } from '../../judge/model-client.ts';
import type { Participant, Scenario } from '../scenario/scenario.ts';
import type { ParticipantActor, ParticipantInput, RunnerPort } from './actor.ts';
import type { CompletionGate, TimerHandle } from './completion-gate.ts';
import { invoke } from './invoke.ts';
import { createMailbox } from './mailbox.ts';
import { participantMessages, participantSystemPrompt, type HeardMessage } from './participant-prompt.ts';
import { END_ACTION, sendAction } from '../agent/agent.ts';
import { classifyReply } from './signals.ts';
import { thinkingDelay, type Random } from './thinking-delay.ts';

export const PARTICIPANT_MAX_TOKENS = 2048;

export interface SimulatedParticipantOptions {
  participant: Participant;
  scenario: Scenario;
  model: ModelClient;
  gate: CompletionGate;
  runner: RunnerPort;
  random: Random;
  thinkingDelays: boolean;
  modelName?: string;
}

type Internal =
  | ParticipantInput
  | { type: 'think_done'; generation: number }
  | { type: 'reply'; conversation: string; insertAt: number; text: string }
  | { type: 'failed'; cause: unknown };

export function createSimulatedParticipant(options: SimulatedParticipantOptions): ParticipantActor {
  const { participant, scenario, gate, runner } = options;
  const self = participant.name;
  const memberOf = scenario.conversations.filter((c) => c.between.includes(self));
  const heard = new Map<string, HeardMessage[]>(memberOf.map((c) => [c.name, []]));
  const unanswered = new Set<string>();
  let state: 'idle' | 'thinking' | 'generating' = 'idle';
  let active = '';
  let attempted = new Set<string>();
  let lengthsAtCycleStart = new Map<string, number>();
  let timer: TimerHandle | undefined;
  let timers = 0;
  let generation = 0;
  let stopped = false;

  const mailbox = createMailbox<Internal>(handle, (error) => runner.fail(self, error, 'participant'));

  function handle(input: Internal): void {
    if (stopped) return;
    switch (input.type) {
      case 'message':
        onMessage(input.conversation, input.message.sender, input.message.content);
        return;
      case 'events':
        return; // observed events do not drive simulated participants: only messages do
      case 'think_done':
        if (state === 'thinking' && input.generation === generation) generate();
        return;
      case 'reply':
        onReply(input.conversation, input.insertAt, input.text);
        return;
      case 'failed':
        stopped = true;
        runner.fail(self, input.cause, 'participant');
        return;
    }
  }

  function onMessage(conversation: string, sender: string, content: string): void {
    historyOf(conversation).push({ sender, content });
    unanswered.add(conversation);
    if (state === 'idle') {
      attempted = new Set();
      lengthsAtCycleStart = new Map([...heard].map(([name, list]) => [name, list.length]));
      think(conversation);
    } else if (state === 'thinking') {
      think(active);
    }
  }

  function think(conversation: string): void {
    active = conversation;
    state = 'thinking';
    timer?.cancel();
    timer = undefined;
    const thisGeneration = ++generation;
    const delay = thinkingDelay(participant.responseSpeed, options.random, options.thinkingDelays);
    if (delay === 0) {
      generate();
      return;
    }
    const handle = gate.timer(`${self}#${++timers}`, delay);
    timer = handle;
    void handle.promise.then(() => mailbox.post({ type: 'think_done', generation: thisGeneration }));
  }

  function generate(): void {
    state = 'generating';
    timer = undefined;
    const conversation = active;
    unanswered.delete(conversation);
    const history = historyOf(conversation);
    const request = {
      ...(options.modelName ? { model: options.modelName } : {}),
      max_tokens: PARTICIPANT_MAX_TOKENS,
      system: participantSystemPrompt(
        participant,
        conversation,
        othersIn(conversation),
        otherConversations(conversation),
      ),
      messages: participantMessages(self, history),
    };
    const insertAt = history.length;
    invoke(() => options.model.createMessage(request))
      .then(
        (response) => {
          if (response === null || response === undefined) throw new TypeError('the model returned no response');
          mailbox.post({ type: 'reply', conversation, insertAt, text: responseText(response) });
        },
        (cause: unknown) => mailbox.post({ type: 'failed', cause }),
      )
      .catch((cause: unknown) => mailbox.post({ type: 'failed', cause }));
  }

  function onReply(conversation: string, insertAt: number, text: string): void {
    const reply = classifyReply(text);
    if (reply.type === 'end') {
      if (reply.content !== undefined) {
        historyOf(conversation).splice(insertAt, 0, { sender: self, content: reply.content });
        runner.respond(self, conversation, sendAction(self, reply.content));
      }
      state = 'idle';
      runner.respond(self, conversation, END_ACTION);
      return;
    }
    if (reply.type === 'send') {
      // Written before the messages that arrived while generating, so those read as unanswered.
      historyOf(conversation).splice(insertAt, 0, { sender: self, content: reply.content });
      runner.respond(self, conversation, sendAction(self, reply.content));
    }
    attempted.add(conversation);
    continueCycle();
  }

  function continueCycle(): void {
    const next = [...unanswered][0];
    if (next !== undefined) {
      attempted.add(next);
      think(next);
      return;
    }
    const grew = [...heard].some(([name, list]) => list.length > (lengthsAtCycleStart.get(name) ?? 0));
    if (grew) {
      const followUp = [...heard].find(
        ([name, list]) => !attempted.has(name) && list.length > 0 && list[list.length - 1].sender === self,
      );
      if (followUp) {
        attempted.add(followUp[0]);
        think(followUp[0]);
        return;
      }
    }
    state = 'idle';
  }

  function historyOf(conversation: string): HeardMessage[] {
    let list = heard.get(conversation);
    if (!list) {
      list = [];
      heard.set(conversation, list);
    }
    return list;
  }

  function othersIn(conversation: string): string[] {
    return scenario.conversations.find((c) => c.name === conversation)?.between.filter((name) => name !== self) ?? [];
  }

  function otherConversations(conversation: string) {
    return [...heard]
      .filter(([name]) => name !== conversation)
      .map(([name, messages]) => ({ name, others: othersIn(name), messages }));
  }

  return {
    name: self,
    post: (input) => mailbox.post(input),
    stop() {
      stopped = true;
      timer?.cancel();
      mailbox.close();
    },
  };
}
