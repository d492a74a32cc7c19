/**
 * The help of `evalon ledger` and of each of its subcommands, by name: `ledger-command.ts`
 * dispatches exactly the subcommands listed here (a new one gets its help here, or it does not run).
 */
import { MAX_LIMIT } from '../api/interactions-query.ts';
import { DEFAULT_INTERACTION_LIMIT } from '../ledger/interaction-query.ts';
import { DEFAULT_API_URL } from './api-client.ts';
import { CONFIG_OPTION } from './args.ts';
import type { CommandHelp, OptionHelp } from './command.ts';

const API_OPTION: OptionHelp = {
  flag: '--api URL',
  description: "the collector's API",
  default: `$EVALON_API_URL, else ${DEFAULT_API_URL}`,
};
/** How a command reaches the API: `--api`, `--token`, `--ca-file` (every command that reads it takes them). */
export const API_OPTIONS: readonly OptionHelp[] = [
  API_OPTION,
  {
    flag: '--token TOKEN',
    description: "the API's extensions::api::auth::bearer_token",
    default: '$EVALON_API_TOKEN',
  },
  {
    flag: '--ca-file FILE',
    description: "PEM CAs to trust for an https:// API, besides the system's",
    default: '$EVALON_CA_CERTS',
  },
];
const JSON_OPTION: OptionHelp = { flag: '--json', description: 'print the JSON the API answers' };

export const LEDGER_SUBCOMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  list: {
    usage:
      '[--agent ID] [--conversation ID] [--since 24h|ISO-8601] [--limit N] [--json] [--api URL] ' +
      '[--token TOKEN] [--ca-file FILE]',
    description: 'Lists recorded interactions, newest first: time, id, agent, failed, tool calls, final response.',
    options: [
      { flag: '--agent ID', description: "only this agent's interactions" },
      { flag: '--conversation ID', description: "only this conversation's interactions" },
      {
        flag: '--since WHEN',
        description:
          'only interactions that ended since then: a duration back from now (30m, 24h, 7d) or an ISO-8601 time',
      },
      {
        flag: '--limit N',
        description: `at most N interactions, 1 to ${MAX_LIMIT}`,
        default: String(DEFAULT_INTERACTION_LIMIT),
      },
      JSON_OPTION,
      ...API_OPTIONS,
    ],
    examples: ['evalon ledger list --agent support-agent --since 24h'],
  },
  show: {
    usage: '<interactionId> [--json] [--api URL] [--token TOKEN] [--ca-file FILE]',
    description:
      'Shows one interaction record: agent, roles, timing, status, usage, input, transcript, final response.',
    options: [JSON_OPTION, ...API_OPTIONS],
    examples: ['evalon ledger show 4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7'],
  },
  evaluations: {
    usage: '<interactionId> [--json] [--api URL] [--token TOKEN] [--ca-file FILE]',
    description:
      'Shows the evaluations recorded for one interaction: evaluator, version, outcome, score, label, control id, ' +
      'attempts and explanation.',
    options: [JSON_OPTION, ...API_OPTIONS],
    examples: ['evalon ledger evaluations 4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7 --json'],
  },
  conversations: {
    usage:
      '[--agent ID] [--open | --over] [--since 24h|ISO-8601] [--limit N] [--json] [--api URL] ' +
      '[--token TOKEN] [--ca-file FILE]',
    description:
      'Lists conversations, most recently active first: last activity, id, agent, revision, state (open, or over ' +
      'and why), turns, failed.',
    options: [
      { flag: '--agent ID', description: "only this agent's conversations" },
      { flag: '--open', description: 'only conversations still open' },
      { flag: '--over', description: 'only conversations that are over (until a new turn reopens them)' },
      {
        flag: '--since WHEN',
        description:
          'only conversations active since then: a duration back from now (30m, 24h, 7d) or an ISO-8601 time',
      },
      {
        flag: '--limit N',
        description: `at most N conversations, 1 to ${MAX_LIMIT}`,
        default: String(DEFAULT_INTERACTION_LIMIT),
      },
      JSON_OPTION,
      ...API_OPTIONS,
    ],
    examples: ['evalon ledger conversations --agent support-agent --over --since 24h'],
  },
  conversation: {
    usage: '<conversationId> [--agent ID] [--json] [--api URL] [--token TOKEN] [--ca-file FILE]',
    description:
      'Shows one conversation turn by turn (question, reply, tools of each interaction) with the verdicts of ' +
      "every revision. A conversation id is one agent's: --agent names it when several agents used the id.",
    options: [
      { flag: '--agent ID', description: 'the agent whose conversation it is (needed when the id has several)' },
      JSON_OPTION,
      ...API_OPTIONS,
    ],
    examples: ['evalon ledger conversation conv-42 --agent support-agent'],
  },
  prune: {
    usage: '[--dry-run] [--json] [--config FILE]...',
    description:
      'Applies the retention policy (processors::evaluation::ledger::retention) to the ledger now, opening it from ' +
      'the configuration: removes what a collector would prune, or with --dry-run counts it by kind (rows and ' +
      'stored bytes). SQLite: refused while a collector runs on the file (it prunes in the background), except ' +
      '--dry-run; PostgreSQL: runs beside the replicas.',
    options: [
      { flag: '--dry-run', description: 'count what would be pruned now; remove nothing' },
      JSON_OPTION,
      CONFIG_OPTION,
    ],
    examples: ['evalon ledger prune --dry-run --config otel-config.yaml'],
    notes: 'Exit codes: 0 done, 1 refused (a collector runs on the SQLite file) or failed, 2 bad input.',
  },
};

export const LEDGER_HELP: CommandHelp = {
  usage: `<${Object.keys(LEDGER_SUBCOMMAND_HELP).join('|')}> [options]`,
  description:
    "Reads the ledger through a running collector's HTTP API (local or remote); prune alone opens the ledger " +
    'from the configuration, to apply its retention policy.',
  options: [],
  examples: ['evalon ledger list --api http://127.0.0.1:4319', 'evalon ledger prune --dry-run'],
  notes:
    'Exit codes: 0 done, 1 the API failed or the interaction (or conversation) is unknown, or prune was refused, ' +
    '2 bad arguments.',
};
