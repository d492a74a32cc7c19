/**
 * A scripted participant: sends its `messages` as written, in order, one per turn. A turn is a
 * message addressed to it (the kick-off included): it answers each one with its next message, in
 * the conversation the message came from. Once every message is sent, the next message it receives
 * ends the run (`[END]`), so the agent's answer to the last message is part of the transcript.
 *
 * No model call and no delay: each answer is a synchronous state transition, so a scripted run is
 * as exact in replay as the rest of the runtime. Observed events are ignored, as for simulated
 * participants.
 */
import { END_ACTION, sendAction } from '../agent/agent.ts';
import type { Participant } from '../scenario/scenario.ts';
import type { ParticipantActor, ParticipantInput, RunnerPort } from './actor.ts';
import { createMailbox } from './mailbox.ts';

export interface ScriptedParticipantOptions {
  participant: Participant;
  runner: RunnerPort;
}

export function createScriptedParticipant(options: ScriptedParticipantOptions): ParticipantActor {
  const { participant, runner } = options;
  const self = participant.name;
  const messages = participant.messages ?? [];
  let sent = 0;
  let ended = false;
  let stopped = false;

  const mailbox = createMailbox<ParticipantInput>(handle, (error) => runner.fail(self, error, 'participant'));

  function handle(input: ParticipantInput): void {
    if (stopped || ended || input.type !== 'message') return;
    if (sent < messages.length) {
      runner.respond(self, input.conversation, sendAction(self, messages[sent]));
      sent += 1;
      return;
    }
    ended = true;
    runner.respond(self, input.conversation, END_ACTION);
  }

  return {
    name: self,
    post: (input) => mailbox.post(input),
    stop() {
      stopped = true;
      mailbox.close();
    },
  };
}
