/**
 * `evalon ledger list|show|evaluations|conversations|conversation`: reads the ledger through the
 * collector's HTTP API (so it works against a running collector, local or remote, and never opens
 * the ledger file itself); the conversation subcommands are in conversations-command.ts.
 * `evalon ledger prune` (prune-command.ts) is the exception: it opens the ledger from the
 * configuration, to apply its retention policy.
 * Exit codes: 0 done, 1 the API failed or the interaction is unknown, 2 bad arguments.
 */
import { parseArgs } from 'node:util';
import { MAX_LIMIT, parseLimit, resolveSince } from '../api/interactions-query.ts';
import type { InteractionRecord, Message, MessagePart, TranscriptEntry } from '../../src/model/records.ts';
import { apiAccess, apiBase, CommandFailure, getJson, type ApiAccess, type CliIo, usage } from './api-client.ts';
import { type CliCommand, type CommandHelp, formatHelp } from './command.ts';
import { LEDGER_HELP, LEDGER_SUBCOMMAND_HELP } from './ledger-help.ts';

/** Width of the final-response column of `list`. */
const FINAL_TEXT_WIDTH = 60;
/** Longest value `show` prints before pointing at --json. */
const MAX_VALUE_CHARS = 2000;

const subcommand = (name: string, help: CommandHelp): CliCommand => ({
  help,
  run: (args, io) => runLedgerCommand([name, ...args], io),
});

/** `evalon ledger` and its subcommands; a subcommand is dispatched only when it is listed here. */
export const ledgerCommand: CliCommand = {
  help: LEDGER_HELP,
  run: (args, io) => runLedgerCommand(args, io),
  subcommands: Object.fromEntries(
    Object.entries(LEDGER_SUBCOMMAND_HELP).map(([name, help]) => [name, subcommand(name, help)]),
  ),
};

const OPTIONS = {
  agent: { type: 'string' },
  conversation: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  api: { type: 'string' },
  token: { type: 'string' },
  'ca-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runLedgerCommand(args: string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  try {
    const subcommands = ledgerCommand.subcommands!;
    if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
      (subcommand === undefined ? io.err : io.out)(formatHelp(['ledger'], ledgerCommand));
      return subcommand === undefined ? 2 : 0;
    }
    if (!Object.hasOwn(subcommands, subcommand)) {
      const names = Object.keys(subcommands);
      const expected = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
      throw usage(`evalon ledger: unknown subcommand "${subcommand}" (expected ${expected})`);
    }
    if (subcommand === 'prune') {
      if (rest.includes('--help') || rest.includes('-h')) {
        io.out(formatHelp(['ledger', subcommand], subcommands[subcommand]!));
        return 0;
      }
      const { runPruneCommand } = await import('./prune-command.ts');
      await runPruneCommand(rest, io);
      return 0;
    }
    if (subcommand === 'conversations' || subcommand === 'conversation') {
      if (rest.includes('--help') || rest.includes('-h')) {
        io.out(formatHelp(['ledger', subcommand], subcommands[subcommand]!));
        return 0;
      }
      const { runConversationsCommand } = await import('./conversations-command.ts');
      await runConversationsCommand(subcommand, rest, io);
      return 0;
    }
    const where = `evalon ledger ${subcommand}`;
    const { values, positionals } = parseOptions(rest, where);
    if (values.help) {
      io.out(formatHelp(['ledger', subcommand], subcommands[subcommand]!));
      return 0;
    }
    const api = apiBase(values.api, where);
    const access = apiAccess({ token: values.token, caFile: values['ca-file'] }, where);
    if (subcommand === 'list') {
      if (positionals.length > 0) throw usage(`${where}: unexpected argument "${positionals[0]}"`);
      const records = await listInteractions(api, access, values, where);
      if (values.json) io.out(JSON.stringify(records, null, 2));
      else printTable(records, io);
      return 0;
    }
    for (const option of ['agent', 'conversation', 'since', 'limit'] as const) {
      if (values[option] !== undefined) throw usage(`${where}: --${option} applies to list only`);
    }
    if (positionals.length !== 1) {
      throw usage(
        positionals.length === 0
          ? `${where}: missing <interactionId>`
          : `${where}: unexpected argument "${positionals[1]}"`,
      );
    }
    if (subcommand === 'evaluations') {
      const { showEvaluations } = await import('./evaluations-command.ts');
      await showEvaluations(api, positionals[0], { json: values.json === true, where, access }, io);
      return 0;
    }
    const record = await showInteraction(api, access, positionals[0], where);
    if (values.json) io.out(JSON.stringify(record, null, 2));
    else printRecord(record, io);
    return 0;
  } catch (error) {
    if (error instanceof CommandFailure) {
      io.err(error.message);
      return error.exitCode;
    }
    throw error;
  }
}

function parseOptions(args: string[], where: string) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as Error & { code?: string };
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (option && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      throw usage(`${where}: unknown option ${option} (see evalon ledger --help)`);
    if (option && code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      throw usage(`${where}: ${option} ${message.includes('does not take') ? 'takes no value' : 'needs a value'}`);
    }
    throw usage(`${where}: ${message.split('\n')[0]}`);
  }
}

async function listInteractions(
  api: URL,
  access: ApiAccess,
  values: ReturnType<typeof parseOptions>['values'],
  where: string,
): Promise<InteractionRecord[]> {
  const url = new URL('api/v1/interactions', api);
  if (values.agent !== undefined) url.searchParams.set('agent', values.agent);
  if (values.conversation !== undefined) url.searchParams.set('conversation', values.conversation);
  if (values.since !== undefined) {
    if (resolveSince(values.since, Date.now()) === undefined) {
      throw usage(
        `${where}: --since must be an ISO-8601 time or a duration such as 30m, 24h or 7d (got "${values.since}")`,
      );
    }
    url.searchParams.set('since', values.since);
  }
  if (values.limit !== undefined) {
    if (parseLimit(values.limit) === undefined)
      throw usage(`${where}: --limit must be an integer from 1 to ${MAX_LIMIT} (got "${values.limit}")`);
    url.searchParams.set('limit', values.limit);
  }
  const body = (await getJson(url, where, () => undefined, access)) as { interactions?: InteractionRecord[] };
  if (!Array.isArray(body?.interactions))
    throw new CommandFailure(`${where}: ${url} did not answer an interaction list`, 1);
  return body.interactions;
}

async function showInteraction(
  api: URL,
  access: ApiAccess,
  interactionId: string,
  where: string,
): Promise<InteractionRecord> {
  const url = new URL(`api/v1/interactions/${encodeURIComponent(interactionId)}`, api);
  const explain = (status: number, body: unknown) => {
    if (status === 404) return `interaction ${interactionId} not found`;
    const prunedAt = (body as { prunedAt?: unknown } | undefined)?.prunedAt;
    if (status === 410)
      return (
        `interaction ${interactionId} was pruned at ${String(prunedAt)} (ledger retention; its evaluations: ` +
        `evalon ledger evaluations ${interactionId})`
      );
    return undefined;
  };
  return (await getJson(url, where, explain, access)) as InteractionRecord;
}

// ---- human output --------------------------------------------------------------------------

function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

function shortTime(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

function printTable(records: InteractionRecord[], io: CliIo): void {
  if (records.length === 0) {
    io.out('no interactions found');
    return;
  }
  const header = ['TIME', 'INTERACTION', 'AGENT', 'FAILED', 'TOOLS', 'FINAL RESPONSE'];
  const rows = records.map((r) => [
    shortTime(r.endTime),
    r.interactionId,
    r.agentId,
    r.failed ? 'yes' : 'no',
    String(r.toolCalls?.length ?? 0),
    oneLine(r.finalResponseText ?? '', FINAL_TEXT_WIDTH),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  for (const row of [header, ...rows]) {
    io.out(
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    );
  }
}

function value(v: unknown): string {
  const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return text.length > MAX_VALUE_CHARS
    ? `${text.slice(0, MAX_VALUE_CHARS)}… (${text.length - MAX_VALUE_CHARS} more characters; --json shows all)`
    : text;
}

/** `first` after `prefix`, then the following lines of `text` indented to line up under it. */
function block(io: CliIo, prefix: string, text: string): void {
  const [first, ...more] = text.split('\n');
  io.out(prefix + first);
  for (const line of more) io.out(' '.repeat(prefix.length) + line);
}

function partText(part: MessagePart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return (part.type === 'reasoning' ? '[reasoning] ' : '') + String(part.content);
    case 'tool_call':
      return `[tool call ${String(part.name)}${part.arguments === undefined ? '' : ` ${value(part.arguments)}`}]`;
    case 'tool_call_response':
      return `[tool result ${value(part.response)}]`;
    default:
      return `[${part.type}]`;
  }
}

function printMessages(title: string, messages: Message[], io: CliIo): void {
  io.out('');
  io.out(title);
  if (messages.length === 0) io.out('  (none)');
  for (const message of messages) block(io, `  ${message.role}: `, message.parts.map(partText).join('\n'));
}

function printTranscriptEntry(entry: TranscriptEntry, n: number, io: CliIo): void {
  const prefix = `  ${n}. `;
  const indent = ' '.repeat(prefix.length);
  if (entry.type === 'message') {
    block(io, `${prefix}${entry.role}: `, entry.content);
    return;
  }
  if (entry.type === 'agent_call') {
    io.out(`${prefix}agent call ${entry.agentId} → ${entry.interactionId}`);
    return;
  }
  const call = `${prefix}tool call ${entry.name}${entry.callId ? ` (${entry.callId})` : ''}`;
  block(
    io,
    call + (entry.arguments === undefined ? '' : ' '),
    entry.arguments === undefined ? '' : value(entry.arguments),
  );
  if (entry.error !== undefined) block(io, `${indent}error: `, entry.error);
  else if (entry.result !== undefined) block(io, `${indent}result: `, value(entry.result));
}

export function printRecord(r: InteractionRecord, io: CliIo): void {
  const field = (name: string, text: string) => io.out(`${name.padEnd(14)}${text}`);
  field('Interaction', r.interactionId);
  field('Agent', r.agentName && r.agentName !== r.agentId ? `${r.agentId} (${r.agentName})` : r.agentId);
  field('Roles', r.roles.length > 0 ? r.roles.join(', ') : '(none)');
  if (r.conversationId) field('Conversation', r.conversationId);
  if (r.flowId) field('Flow', r.flowId);
  field('Trace', `${r.traceId}  span ${r.spanId}`);
  field('Time', `${r.startTime} → ${r.endTime} (${r.durationMs} ms, completion: ${r.completion})`);
  field('Status', r.failed ? `failed${r.failureSummary ? `: ${r.failureSummary}` : ''}` : 'ok');
  if (r.model || r.provider) field('Model', [r.provider, r.model].filter(Boolean).join(' '));
  const usage = [
    r.usage.inputTokens !== undefined && `${r.usage.inputTokens} input tokens`,
    r.usage.outputTokens !== undefined && `${r.usage.outputTokens} output tokens`,
  ];
  field('Usage', usage.filter(Boolean).join(', ') || '(not reported)');
  printMessages('Input', r.input, io);
  io.out('');
  io.out('Transcript');
  if (r.transcript.length === 0) io.out('  (empty)');
  for (const [i, entry] of r.transcript.entries()) printTranscriptEntry(entry, i + 1, io);
  if (r.transcript.length === 0 && r.toolCalls.length > 0) {
    io.out('');
    io.out('Tool calls');
    for (const [i, call] of r.toolCalls.entries()) printTranscriptEntry({ type: 'tool_call', ...call }, i + 1, io);
  }
  io.out('');
  io.out('Final response');
  block(io, '  ', r.finalResponseText === '' ? '(none)' : r.finalResponseText);
}
