/**
 * What a recorded conversation says, turn by turn: the user's message of each interaction, the
 * agent's answer, its system prompt and model when the records carry them. Records keep the
 * OpenTelemetry GenAI message shape (`src/model/records.ts`); only text parts are read.
 */
import type { ConversationWithInteractions, InteractionRecord, Message } from '../../model/records.ts';
import { RehearsalError } from './rehearsal-error.ts';

/** One turn of the conversation: what the user said and what the agent answered. */
export interface RecordedTurn {
  interactionId: string;
  user: string;
  agent: string;
}

const SYSTEM_ROLES = ['system', 'developer'];

/** The text parts of a message, joined by newlines. */
export function messageText(message: Message): string {
  return message.parts
    .flatMap((part) => (part.type === 'text' && typeof part.content === 'string' ? [part.content] : []))
    .join('\n');
}

/**
 * The user's message of an interaction: its last `user` input message (an agent may be given the
 * history as input; the new message is the last one), else the first `user` message of its
 * transcript. An interaction without one was recorded without content capture.
 */
export function userMessageOf(record: InteractionRecord, turn: number): string {
  const fromInput = record.input.filter((message) => message.role === 'user').map(messageText);
  const fromTranscript = record.transcript.flatMap((entry) =>
    entry.type === 'message' && entry.role === 'user' ? [entry.content] : [],
  );
  const text = [...fromInput.reverse(), ...fromTranscript].find((candidate) => candidate.trim() !== '');
  if (text === undefined)
    throw new RehearsalError(
      `interaction ${record.interactionId} (turn ${turn}) has no recorded user message (the agent's input was ` +
        'not captured: turn on content capture, see docs/instrumentation.md)',
    );
  return text;
}

export function recordedTurns(conversation: ConversationWithInteractions): RecordedTurn[] {
  if (conversation.interactions.length === 0)
    throw new RehearsalError(
      `conversation ${conversation.conversationId} of agent ${conversation.agentId} has no interactions to rehearse`,
    );
  return conversation.interactions.map((record, index) => ({
    interactionId: record.interactionId,
    user: userMessageOf(record, index + 1),
    agent: record.finalResponseText,
  }));
}

/** The agent's system prompt, when an interaction recorded one (as a system or developer message). */
export function recordedSystemPrompt(interactions: readonly InteractionRecord[]): string | undefined {
  for (const record of interactions) {
    const fromInput = record.input.filter((message) => SYSTEM_ROLES.includes(message.role)).map(messageText);
    const fromTranscript = record.transcript.flatMap((entry) =>
      entry.type === 'message' && SYSTEM_ROLES.includes(entry.role) ? [entry.content] : [],
    );
    const prompt = [...fromInput, ...fromTranscript].find((text) => text.trim() !== '');
    if (prompt !== undefined) return prompt;
  }
  return undefined;
}

/** The agent's model, when an interaction recorded one (the first that did). */
export function recordedModel(interactions: readonly InteractionRecord[]): string | undefined {
  return interactions.find((record) => record.model !== undefined && record.model.trim() !== '')?.model;
}
