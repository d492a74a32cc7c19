/**
 * What a simulated participant's model sees: a role-play system prompt (or the participant's own
 * `template`), the [END] rule (always appended), a note of its other conversations, and the
 * active conversation as alternating turns.
 */
import type { ModelMessage } from '../../judge/model-client.ts';
import type { Participant } from '../scenario/scenario.ts';
import { END_SIGNAL } from './signals.ts';

export const START_NUDGE = '[system]: The conversation is starting. Please begin.';
export const TURN_NUDGE = "[system]: It's your turn to respond.";

export const DEFAULT_PARTICIPANT_TEMPLATE = [
  'You are role-playing a participant in a simulated conversation, to test an AI agent.',
  'Your name/role: {name}',
  'Persona: {persona}',
  'Goal: {goal}',
  '',
  'You are responding in the "{conv}" conversation with {others}. ' +
    'Address them, not people from your other conversations.',
  'Stay in character and respond naturally, as this person would.',
].join('\n');

export const END_RULE = [
  `Write ${END_SIGNAL} at the very end of your message only when ` +
    'the conversation is genuinely complete: your goal is achieved,',
  'or the other side has clearly wrapped up. Never end mid-task, ' +
    'while waiting for something to be done, or while correcting',
  'yourself; do not end right after confirming an action the other side has not completed yet. When in doubt, do not ' +
    `write ${END_SIGNAL}.`,
  'Output only the content of your message: it is delivered exactly as you write it.',
].join('\n');

/** One line of a participant's memory of a conversation. */
export interface HeardMessage {
  sender: string;
  content: string;
}

export function participantSystemPrompt(
  participant: Participant,
  conversation: string,
  others: readonly string[],
  otherConversations: ReadonlyArray<{ name: string; others: readonly string[]; messages: readonly HeardMessage[] }>,
): string {
  const template = participant.template?.trim() ? participant.template : DEFAULT_PARTICIPANT_TEMPLATE;
  const values: Record<string, string> = {
    name: participant.name,
    persona: participant.persona.trim(),
    goal: participant.goal.trim(),
    conv: conversation,
    others: others.length > 0 ? others.join(', ') : 'unknown',
  };
  const body = template.replace(/\{(name|persona|goal|conv|others)\}/g, (_, key: string) => values[key]);
  const parts = [body.trim(), END_RULE];
  for (const other of otherConversations) {
    if (other.messages.length === 0) continue;
    const lines = other.messages.map((message) => `[${message.sender}]: ${message.content}`);
    parts.push(
      `You also have an ongoing conversation in "${other.name}" with ${other.others.join(', ') || 'unknown'}. Recent ` +
        `messages there:\n${lines.join('\n')}`,
    );
  }
  return parts.join('\n\n');
}

/**
 * The active conversation as model turns: own messages are `assistant`, everyone else's are
 * `user` lines `[sender]: content`; consecutive turns of one role are merged. It starts with the
 * start nudge when it would otherwise not start with a user turn, and ends with the turn nudge
 * when the participant spoke last.
 */
export function participantMessages(self: string, heard: readonly HeardMessage[]): ModelMessage[] {
  const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  for (const message of heard) {
    const role = message.sender === self ? 'assistant' : 'user';
    const content = role === 'assistant' ? message.content : `[${message.sender}]: ${message.content}`;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content = `${last.content}\n${content}`;
    else messages.push({ role, content });
  }
  if (messages.length === 0 || messages[0].role === 'assistant')
    messages.unshift({ role: 'user', content: START_NUDGE });
  if (messages[messages.length - 1].role === 'assistant') messages.push({ role: 'user', content: TURN_NUDGE });
  return messages;
}
