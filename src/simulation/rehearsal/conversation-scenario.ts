/**
 * A recorded conversation as a scenario that rehearses it: the user becomes a scripted participant
 * sending the recorded messages in order (or a simulated one, from a derived persona and goal),
 * the agent under test is the evaluated participant (in process with the recorded system prompt,
 * model and tools as recorded tools, or a remote agent), judged against the given criteria. The
 * header says where everything came from, and quotes the verdicts recorded for the conversation.
 */
import type { Criterion } from '../../judge/criterion.ts';
import type { ConversationWithInteractions, EvaluationRecord } from '../../model/records.ts';
import { DEFAULT_MAX_TURNS, type Participant, type Scenario } from '../scenario/scenario.ts';
import { recordedModel, recordedSystemPrompt, recordedTurns } from './recorded-messages.ts';
import { recordedToolsOf } from './recorded-tools.ts';
import { verdictLines } from './recorded-verdicts.ts';
import type { UserProfile } from './user-profile.ts';

export const REHEARSAL_USER = 'end_user';
export const REHEARSAL_AGENT = 'agent';
export const REHEARSAL_CONVERSATION = 'chat';
/** Longest scenario name (it names output folders). */
const MAX_NAME_LENGTH = 80;

export interface RehearsalOptions {
  conversation: ConversationWithInteractions;
  criteria: Criterion[];
  /** Where the criteria come from, for the header (`the criteria-judge binding agents::x in otel-config.yaml`). */
  criteriaSource: string;
  /** The judge's instructions, when the criteria come with their own. */
  promptTemplate?: string;
  /** Rehearse the remote agent at this URL instead of an in-process one. */
  agentEndpoint?: string;
  /** Role-play this user instead of sending the recorded messages. */
  simulatedUser?: UserProfile;
  /** Verdicts recorded for the conversation, quoted in the header. */
  evaluations?: readonly EvaluationRecord[];
}

export interface Rehearsal {
  scenario: Scenario;
  /** Comment lines for the top of the file. */
  header: string[];
}

export function rehearsalOf(options: RehearsalOptions): Rehearsal {
  const { conversation } = options;
  const turns = recordedTurns(conversation);
  const { tools, skipped } = recordedToolsOf(conversation.interactions);
  const systemPrompt = recordedSystemPrompt(conversation.interactions);
  const model = recordedModel(conversation.interactions);

  const user: Participant = options.simulatedUser
    ? { name: REHEARSAL_USER, type: 'simulated', ...options.simulatedUser }
    : { name: REHEARSAL_USER, type: 'scripted', persona: '', goal: '', messages: turns.map((turn) => turn.user) };
  const agent: Participant = options.agentEndpoint
    ? { name: REHEARSAL_AGENT, type: 'evaluated', persona: '', goal: '', endpoint: options.agentEndpoint }
    : {
        name: REHEARSAL_AGENT,
        type: 'evaluated',
        persona: '',
        goal: '',
        ...(model !== undefined ? { model } : {}),
        ...(systemPrompt !== undefined ? { systemPrompt } : {}),
        tools,
      };
  // Room for every recorded turn and the scripted user's end: a run never stops short of the script.
  const maxTurns = options.simulatedUser ? DEFAULT_MAX_TURNS : Math.max(DEFAULT_MAX_TURNS, turns.length + 1);

  const scenario: Scenario = {
    name: scenarioName(conversation),
    description:
      `Rehearses conversation ${conversation.conversationId} of agent ${conversation.agentId}: ` +
      `${turns.length} ${turns.length === 1 ? 'turn' : 'turns'} recorded from ${conversation.startTime} to ` +
      `${conversation.lastActivityTime}.`,
    participants: [user, agent],
    conversations: [
      { name: REHEARSAL_CONVERSATION, between: [REHEARSAL_USER, REHEARSAL_AGENT], initiatedBy: REHEARSAL_USER },
    ],
    observations: [],
    eventSources: [],
    context: {},
    maxTurns,
    ...(options.promptTemplate !== undefined ? { evalPromptTemplate: options.promptTemplate } : {}),
    evalCriteria: options.criteria,
    expectContext: [],
  };
  return { scenario, header: headerOf(options, turns.length, skipped, tools.length > 0) };
}

function headerOf(options: RehearsalOptions, turns: number, skipped: string[], hasTools: boolean): string[] {
  const { conversation } = options;
  const lines = [
    `Rehearsal of conversation ${conversation.conversationId} of agent ${conversation.agentId} (${turns} ` +
      `${turns === 1 ? 'turn' : 'turns'}),`,
    'written by evalon scenario from-conversation; run it with evalon simulate.',
    options.simulatedUser
      ? 'The user is role-played from a persona and goal the model derived from the recorded conversation.'
      : 'The user sends the recorded messages in order, one per turn, whatever the agent answers.',
    ...(options.agentEndpoint
      ? [
          `The agent is the remote agent at ${options.agentEndpoint}: it runs its own model and tools` +
            (hasTools ? ' (the recorded tool calls are not used).' : '.'),
        ]
      : hasTools
        ? [
            'The agent runs in process; its tools answer with the recorded results.',
            "Tool descriptions are not recorded: add them from the agent's code (description).",
          ]
        : ['The agent runs in process, without tools (none was called in the recording).']),
    `eval_criteria: ${options.criteriaSource}.`,
    ...skipped.map((line) => `not rehearsed: ${line}`),
  ];
  const verdicts = verdictLines(
    options.evaluations ?? [],
    conversation.interactions.map((record) => record.interactionId),
  );
  return verdicts.length > 0 ? [...lines, '', ...verdicts] : [...lines, '', 'recorded: no verdicts'];
}

/** `<agent>-<conversation>` in letters, digits, `.`, `_` and `-`: it names output folders. */
export function scenarioName(conversation: ConversationWithInteractions): string {
  const name = `${conversation.agentId}-${conversation.conversationId}`
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, MAX_NAME_LENGTH);
  return name === '' ? 'rehearsal' : name;
}
