/**
 * `evalon scenario from-conversation <conversationId>`: turns a recorded production conversation
 * into a scenario YAML that rehearses it (docs/simulation.md, "From a production conversation"):
 * the recorded user messages as a scripted participant (or a simulated user derived by the model),
 * the agent in process with its recorded tools, or a remote agent, judged against the agent's
 * conversation-bound criteria or a `--criteria` file. The file is checked to load before it is
 * written. Exit codes: 0 written, 1 the API or the model failed, 2 bad input.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createAnthropicModelClient } from '../../src/judge/anthropic-model-client.ts';
import { modelSettingsFromEnv } from '../../src/judge/model-settings.ts';
import { rehearsalOf } from '../../src/simulation/rehearsal/conversation-scenario.ts';
import { recordedTurns } from '../../src/simulation/rehearsal/recorded-messages.ts';
import { RehearsalError } from '../../src/simulation/rehearsal/rehearsal-error.ts';
import { deriveUserProfile, type UserProfile } from '../../src/simulation/rehearsal/user-profile.ts';
import { parseScenario } from '../../src/simulation/scenario/scenario-loader.ts';
import { formatScenario } from '../../src/simulation/scenario/scenario-writer.ts';
import { apiAccess, apiBase, CommandFailure, usage, type CliIo } from './api-client.ts';
import { API_OPTIONS } from './ledger-help.ts';
import { DEFAULT_CONFIG_FILE } from './args.ts';
import { type CliCommand, type CommandHelp, formatHelp } from './command.ts';
import { fetchRecordedConversation } from './recorded-conversation.ts';
import { criteriaFromConfig, criteriaFromFile, type RehearsalCriteria } from './rehearsal-criteria.ts';

const WHERE = 'evalon scenario from-conversation';

const FROM_CONVERSATION_HELP: CommandHelp = {
  usage:
    '<conversationId> [--agent ID] [--out FILE] [--criteria FILE] [--agent-endpoint URL] [--simulate-user] ' +
    '[--config FILE]... [--api URL] [--token TOKEN] [--ca-file FILE]',
  description:
    'Writes a scenario that rehearses a recorded conversation: the recorded user messages in order, the agent ' +
    "under test with its recorded tools (or a remote agent), judged against the agent's criteria.",
  options: [
    { flag: '--agent ID', description: 'the agent whose conversation it is (needed when several share the id)' },
    { flag: '--out FILE', description: 'write the scenario to FILE', default: 'standard output' },
    {
      flag: '--agent-endpoint URL',
      description: 'rehearse the remote agent at URL (POST URL/v1/step) instead of an in-process one',
    },
    {
      flag: '--criteria FILE',
      description: 'a YAML list of criteria (as eval_criteria)',
      default: "the agent's conversation-bound criteria-judge binding in --config",
    },
    {
      flag: '--config FILE',
      short: '-c',
      description: 'the collector configuration to read that binding from (repeatable)',
      default: `${DEFAULT_CONFIG_FILE} when there is one`,
    },
    {
      flag: '--simulate-user',
      description:
        'a simulated user with a persona and goal the model derives from the conversation (one model call: ' +
        'ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, EVALON_MODEL)',
    },
    ...API_OPTIONS,
  ],
  examples: [
    'evalon scenario from-conversation conv-42 --agent support-agent --out scenarios/conv-42.yaml',
    'evalon scenario from-conversation conv-42 --criteria criteria.yaml --agent-endpoint http://127.0.0.1:8080',
  ],
  notes: 'Exit codes: 0 written, 1 the API or the model failed, 2 bad input.',
};

export const scenarioCommand: CliCommand = {
  help: {
    usage: 'from-conversation <conversationId> [options]',
    description: 'Scenarios made from what the collector recorded.',
    options: [],
    examples: ['evalon scenario from-conversation conv-42 --out scenarios/conv-42.yaml'],
  },
  run: (args, io) => runScenarioCommand(args, io),
  subcommands: {
    'from-conversation': {
      help: FROM_CONVERSATION_HELP,
      run: (args, io) => runScenarioCommand(['from-conversation', ...args], io),
    },
  },
};

const OPTIONS = {
  agent: { type: 'string' },
  api: { type: 'string' },
  token: { type: 'string' },
  'ca-file': { type: 'string' },
  out: { type: 'string' },
  'agent-endpoint': { type: 'string' },
  criteria: { type: 'string' },
  config: { type: 'string', short: 'c', multiple: true },
  'simulate-user': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface ScenarioCommandOptions {
  /** Where model settings are read (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export async function runScenarioCommand(
  args: string[],
  io: CliIo,
  options: ScenarioCommandOptions = {},
): Promise<number> {
  const [subcommand, ...rest] = args;
  try {
    if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
      (subcommand === undefined ? io.err : io.out)(formatHelp(['scenario'], scenarioCommand));
      return subcommand === undefined ? 2 : 0;
    }
    if (subcommand !== 'from-conversation')
      throw usage(`evalon scenario: unknown subcommand "${subcommand}" (expected from-conversation)`);
    const { values, positionals } = parseOptions(rest);
    if (values.help) {
      io.out(formatHelp(['scenario', 'from-conversation'], scenarioCommand.subcommands!['from-conversation']!));
      return 0;
    }
    if (positionals.length !== 1)
      throw usage(
        positionals.length === 0
          ? `${WHERE}: missing <conversationId> (see --help)`
          : `${WHERE}: unexpected argument "${positionals[1]}"`,
      );
    const endpoint = values['agent-endpoint'];
    if (endpoint !== undefined && !/^https?:\/\/\S+$/.test(endpoint))
      throw usage(`${WHERE}: --agent-endpoint: expected an http(s) URL, got ${JSON.stringify(endpoint)}`);
    const env = options.env ?? process.env;
    // Checked before anything is read, so a missing key does not cost a trip to the API.
    const modelSettings = values['simulate-user'] ? modelSettingsFromEnv(env) : undefined;
    if (modelSettings && !modelSettings.apiKey)
      throw usage(`${WHERE}: ANTHROPIC_API_KEY: not set (--simulate-user asks the model for the user's persona)`);
    const criteriaFile = values.criteria !== undefined ? criteriaFromFile(values.criteria, WHERE) : undefined;

    const { conversation, evaluations } = await fetchRecordedConversation({
      api: apiBase(values.api, WHERE),
      conversationId: positionals[0],
      ...(values.agent !== undefined ? { agentId: values.agent } : {}),
      access: apiAccess({ token: values.token, caFile: values['ca-file'] }, WHERE),
      where: WHERE,
    });
    const criteria = criteriaFile ?? conversationCriteria(values.config, conversation, io);
    const turns = recordedTurns(conversation);
    let simulatedUser: UserProfile | undefined;
    if (modelSettings) simulatedUser = await deriveUserProfile(turns, createAnthropicModelClient({ env }));

    const { scenario, header } = rehearsalOf({
      conversation,
      criteria: criteria.criteria,
      criteriaSource: criteria.source,
      ...(criteria.promptTemplate !== undefined ? { promptTemplate: criteria.promptTemplate } : {}),
      ...(endpoint !== undefined ? { agentEndpoint: endpoint } : {}),
      ...(simulatedUser ? { simulatedUser } : {}),
      evaluations,
    });
    const text = formatScenario(scenario, { header });
    // What is written must load: a scenario the loader rejects would be a bug here, not the user's.
    parseScenario(text, values.out ?? '<written scenario>');
    if (values.out === undefined) {
      io.out(text.replace(/\n$/, ''));
      return 0;
    }
    try {
      writeFileSync(values.out, text);
    } catch (error) {
      throw usage(`${WHERE}: --out: cannot write ${values.out} (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
    const tools = scenario.participants.find((p) => p.type === 'evaluated')?.tools?.length ?? 0;
    io.out(
      `Wrote ${values.out}: ${turns.length} turns of conversation ${conversation.conversationId} of ` +
        `${conversation.agentId}, ${tools} recorded tools, ${scenario.evalCriteria.length} criteria ` +
        `(run it with: evalon simulate ${values.out})`,
    );
    return 0;
  } catch (error) {
    if (error instanceof CommandFailure) {
      for (const line of error.message.split('\n')) io.err(line);
      return error.exitCode;
    }
    if (error instanceof RehearsalError) {
      io.err(`${WHERE}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

function conversationCriteria(
  configFiles: string[] | undefined,
  conversation: { agentId: string; interactions: ReadonlyArray<{ roles: string[] }> },
  io: CliIo,
): RehearsalCriteria {
  // The roles of its newest interaction, as the collector reads them for bindings.
  const roles = conversation.interactions.at(-1)?.roles ?? [];
  const found = criteriaFromConfig(configFiles, { agentId: conversation.agentId, roles }, io);
  if ('criteria' in found) return found;
  throw usage(
    `${WHERE}: no criteria for agent ${conversation.agentId}: ${found.missing} (pass --criteria FILE with a ` +
      'YAML list of criteria, or --config FILE with a configuration that binds criteria-judge to the agent ' +
      'with trigger: conversation)',
  );
}

function parseOptions(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw usage(`${WHERE}: ${(error as Error).message.split('\n')[0]} (see ${WHERE} --help)`);
  }
}
