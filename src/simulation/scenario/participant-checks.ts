/**
 * Which participant keys go with which `type`: a key that the participant's kind would ignore is a
 * problem at that key, so nothing a user writes is silently without effect. Runs with the other
 * cross-reference checks, on the value as written (defensively: its shape may have problems too).
 */
import { isRecord } from '../../config/yaml-path.ts';

export type IssueAt = (path: Array<string | number>, message: string) => void;

/** Keys that configure role-play, which a scripted participant does not do. */
const ROLE_PLAY_KEYS = ['persona', 'goal', 'template', 'response_speed'];
/** Keys of the in-process agent, which only the evaluated participant is. */
const IN_PROCESS_AGENT_KEYS = ['system_prompt', 'model', 'tools'];

export function checkParticipantKeys(name: string, participant: unknown, issue: IssueAt): void {
  if (!isRecord(participant)) return;
  const type = participant.type ?? 'simulated';
  const at = (key: string) => ['participants', name, key];
  const has = (key: string) => participant[key] !== undefined;

  if (type === 'scripted') {
    const messages = participant.messages;
    if (messages === undefined)
      issue(at('messages'), 'a scripted participant needs messages (the list it sends, one per turn)');
    else if (Array.isArray(messages) && messages.length === 0)
      issue(at('messages'), 'a scripted participant needs at least one message');
    for (const key of ROLE_PLAY_KEYS.filter(has)) {
      issue(
        at(key),
        `is not used by a scripted participant (it sends its messages as written; remove ${key} or set ` +
          'type: simulated)',
      );
    }
  } else if (has('messages')) {
    issue(at('messages'), 'messages are only sent by a scripted participant (remove them or set type: scripted)');
  }

  for (const key of IN_PROCESS_AGENT_KEYS.filter(has)) {
    if (type !== 'evaluated')
      issue(at(key), `${key} is only used by the evaluated participant (remove it or set type: evaluated)`);
    else if (has('endpoint'))
      issue(
        at(key),
        `${key} configures the in-process agent, but endpoint makes this a remote agent, which runs its own ` +
          `(remove ${key} or endpoint)`,
      );
  }
}
