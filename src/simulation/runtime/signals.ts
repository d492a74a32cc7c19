/** The control signals participants and agents write at the end of a reply. */

/** A participant ends the whole simulation. */
export const END_SIGNAL = '[END]';
/** A representative with nothing to ask in the assist conversation stays silent. */
export const NO_QUESTION_SIGNAL = '[NO_QUESTION]';
/** An assisting agent with nothing useful to add stays silent. */
export const NO_ACTION_SIGNAL = '[NO_ACTION]';

export type ParticipantReply =
  | { type: 'silent' }
  | { type: 'send'; content: string }
  | { type: 'end'; content?: string };

/**
 * Classifies a simulated participant's reply (trimmed): a trailing [END] ends the simulation after
 * sending any text before it; [NO_QUESTION] alone is silence and trailing is stripped; empty is
 * silence. A signal in the middle of the text is ordinary text.
 */
export function classifyReply(raw: string | null | undefined): ParticipantReply {
  const text = (raw ?? '').trim();
  if (text === '') return { type: 'silent' };
  if (text.endsWith(END_SIGNAL)) {
    const content = text.slice(0, -END_SIGNAL.length).trim();
    return content === '' ? { type: 'end' } : { type: 'end', content };
  }
  if (text.endsWith(NO_QUESTION_SIGNAL)) {
    const content = text.slice(0, -NO_QUESTION_SIGNAL.length).trim();
    return content === '' ? { type: 'silent' } : { type: 'send', content };
  }
  return { type: 'send', content: text };
}

/** An agent's text with a trailing [NO_ACTION] removed; a bare [NO_ACTION] becomes "" (silence). */
export function stripNoAction(text: string): string {
  const trimmed = text.trim();
  return trimmed.endsWith(NO_ACTION_SIGNAL) ? trimmed.slice(0, -NO_ACTION_SIGNAL.length).trim() : text;
}
