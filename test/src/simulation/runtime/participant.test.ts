import { describe, expect, it } from 'vitest';
import {
  participantMessages,
  participantSystemPrompt,
  START_NUDGE,
  TURN_NUDGE,
} from '../../../../src/simulation/runtime/participant-prompt.ts';
import { classifyReply, stripNoAction } from '../../../../src/simulation/runtime/signals.ts';
import { actorRandom, THINKING_DELAY_MS, thinkingDelay } from '../../../../src/simulation/runtime/thinking-delay.ts';

describe('simulated participant prompt and signals', () => {
  const participant = {
    name: 'representative',
    type: 'simulated' as const,
    persona: 'Sarah, a new rep',
    goal: 'cancel the booking',
  };

  it('classifies replies: trailing [END] ends after the text, [NO_QUESTION] is silence', () => {
    expect(classifyReply('  ')).toEqual({ type: 'silent' });
    expect(classifyReply(null)).toEqual({ type: 'silent' });
    expect(classifyReply('Thanks! [END]')).toEqual({ type: 'end', content: 'Thanks!' });
    expect(classifyReply('[END]')).toEqual({ type: 'end' });
    expect(classifyReply('Say [END] later')).toEqual({ type: 'send', content: 'Say [END] later' });
    expect(classifyReply('[NO_QUESTION]')).toEqual({ type: 'silent' });
    expect(classifyReply('Got it. [NO_QUESTION]')).toEqual({ type: 'send', content: 'Got it.' });
    expect(stripNoAction('[NO_ACTION]')).toBe('');
    expect(stripNoAction('Check the policy. [NO_ACTION]')).toBe('Check the policy.');
  });

  it('fills the template, always appends the [END] rule and shows the other conversations', () => {
    const prompt = participantSystemPrompt(
      participant,
      'support_chat',
      ['end_user'],
      [
        { name: 'agent_assist', others: ['agent'], messages: [{ sender: 'agent', content: 'Offer a full refund.' }] },
        { name: 'empty', others: [], messages: [] },
      ],
    );
    expect(prompt).toContain('Your name/role: representative');
    expect(prompt).toContain('You are responding in the "support_chat" conversation with end_user.');
    expect(prompt).toContain('[END]');
    expect(prompt).toContain(
      'You also have an ongoing conversation in "agent_assist" with agent. Recent messages there:\n[agent]: ' +
        'Offer a full refund.',
    );
    expect(prompt).not.toContain('"empty"');
    const custom = participantSystemPrompt(
      { ...participant, template: 'You are {name} talking to {others} in {conv}.' },
      'chat',
      [],
      [],
    );
    expect(custom.startsWith('You are representative talking to unknown in chat.')).toBe(true);
    expect(custom).toContain('Write [END] at the very end of your message only when');
  });

  it('turns a conversation into alternating turns with start and turn nudges', () => {
    expect(participantMessages('me', [])).toEqual([{ role: 'user', content: START_NUDGE }]);
    expect(
      participantMessages('me', [
        { sender: 'system', content: 'The conversation is starting. Please begin.' },
        { sender: 'me', content: 'Hello' },
        { sender: 'agent', content: 'Hi' },
        { sender: 'rep', content: 'Also hi' },
        { sender: 'me', content: 'Question' },
      ]),
    ).toEqual([
      { role: 'user', content: '[system]: The conversation is starting. Please begin.' },
      { role: 'assistant', content: 'Hello' },
      { role: 'user', content: '[agent]: Hi\n[rep]: Also hi' },
      { role: 'assistant', content: 'Question' },
      { role: 'user', content: TURN_NUDGE },
    ]);
  });

  it('draws thinking delays from the speed ranges, repeatably per seed', () => {
    const a = actorRandom(42, 'rep');
    const b = actorRandom(42, 'rep');
    const delays = Array.from({ length: 50 }, () => thinkingDelay('medium', a, true));
    expect(delays).toEqual(Array.from({ length: 50 }, () => thinkingDelay('medium', b, true)));
    expect(delays.every((ms) => ms >= THINKING_DELAY_MS.medium.min && ms <= THINKING_DELAY_MS.medium.max)).toBe(true);
    expect(thinkingDelay(undefined, a, true)).toBe(0);
    expect(thinkingDelay('slow', a, false)).toBe(0);
  });
});
