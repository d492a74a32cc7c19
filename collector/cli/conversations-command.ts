/**
 * `evalon ledger conversations` and `evalon ledger conversation <id>`: conversations read through
 * the collector's API (`GET /api/v1/conversations`, `/api/v1/conversations/{id}` and its
 * evaluations), as a table, one conversation turn by turn with the verdicts of every revision, or
 * JSON. A conversation is one agent's: `--agent` names it when the id has several.
 */
import { parseArgs } from 'node:util';
import type { ConversationRecord, ConversationWithInteractions, EvaluationRecord } from '../../src/model/records.ts';
import { MAX_LIMIT, parseLimit, resolveSince } from '../api/interactions-query.ts';
import { apiAccess, apiBase, type ApiAccess, CommandFailure, getJson, usage, type CliIo } from './api-client.ts';
import { outcomeWord } from './evaluations-command.ts';

/** Width of the question and reply columns of a conversation's turns. */
const TEXT_WIDTH = 60;

const OPTIONS = {
  agent: { type: 'string' },
  open: { type: 'boolean' },
  over: { type: 'boolean' },
  since: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  api: { type: 'string' },
  token: { type: 'string' },
  'ca-file': { type: 'string' },
} as const;

export async function runConversationsCommand(
  subcommand: 'conversations' | 'conversation',
  args: string[],
  io: CliIo,
): Promise<void> {
  const where = `evalon ledger ${subcommand}`;
  const { values, positionals } = parse(args, where);
  const api = apiBase(values.api, where);
  const access = apiAccess({ token: values.token, caFile: values['ca-file'] }, where);
  if (subcommand === 'conversations') {
    if (positionals.length > 0) throw usage(`${where}: unexpected argument "${positionals[0]}"`);
    const records = await listConversations(api, access, values, where);
    if (values.json) io.out(JSON.stringify(records, null, 2));
    else printTable(records, io);
    return;
  }
  for (const option of ['open', 'over', 'since', 'limit'] as const) {
    if (values[option] !== undefined) throw usage(`${where}: --${option} applies to conversations only`);
  }
  if (positionals.length !== 1) {
    throw usage(
      positionals.length === 0
        ? `${where}: missing <conversationId>`
        : `${where}: unexpected argument "${positionals[1]}"`,
    );
  }
  const [conversationId] = positionals;
  const path = `api/v1/conversations/${encodeURIComponent(conversationId)}`;
  const url = withAgent(new URL(path, api), values.agent);
  const explain = explainMissing(conversationId, values.agent, where);
  const conversation = (await getJson(url, where, explain, access)) as ConversationWithInteractions;
  if (values.json) {
    io.out(JSON.stringify(conversation, null, 2));
    return;
  }
  const evaluations = (await getJson(
    withAgent(new URL(`${path}/evaluations`, api), conversation.agentId),
    where,
    explain,
    access,
  )) as { evaluations?: EvaluationRecord[] };
  printConversation(conversation, evaluations.evaluations ?? [], io);
}

function parse(args: string[], where: string) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as Error & { code?: string };
    const option = /'(-[^' ]+)/.exec(message)?.[1];
    if (option && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      throw usage(`${where}: unknown option ${option} (see evalon ledger --help)`);
    throw usage(`${where}: ${message.split('\n')[0]}`);
  }
}

function withAgent(url: URL, agent: string | undefined): URL {
  if (agent !== undefined) url.searchParams.set('agent', agent);
  return url;
}

/** 404: not found (exit 1); 409: the id has several agents, name one (bad input, exit 2). */
function explainMissing(conversationId: string, agent: string | undefined, where: string) {
  return (status: number, body: unknown): string | CommandFailure | undefined => {
    if (status === 404)
      return `${where}: conversation ${conversationId}${agent !== undefined ? ` of agent ${agent}` : ''} not found`;
    if (status === 409) {
      const agents = (body as { agents?: string[] })?.agents ?? [];
      return usage(
        `${where}: conversation ${conversationId} has several agents: ${agents.join(', ')} (name one with --agent ID)`,
      );
    }
    return undefined;
  };
}

async function listConversations(
  api: URL,
  access: ApiAccess,
  values: ReturnType<typeof parse>['values'],
  where: string,
): Promise<ConversationRecord[]> {
  if (values.open && values.over) throw usage(`${where}: --open and --over exclude each other`);
  const url = new URL('api/v1/conversations', api);
  if (values.agent !== undefined) url.searchParams.set('agent', values.agent);
  if (values.open) url.searchParams.set('open', 'true');
  if (values.over) url.searchParams.set('open', 'false');
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
  const body = (await getJson(url, where, () => undefined, access)) as { conversations?: ConversationRecord[] };
  if (!Array.isArray(body?.conversations))
    throw new CommandFailure(`${where}: ${url} did not answer a conversation list`, 1);
  return body.conversations;
}

// ---- human output --------------------------------------------------------------------------

const shortTime = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

function state(record: ConversationRecord): string {
  return record.open ? 'open' : `over (${record.endReason ?? 'ended'})`;
}

function printTable(records: ConversationRecord[], io: CliIo): void {
  if (records.length === 0) {
    io.out('no conversations found');
    return;
  }
  const header = ['LAST ACTIVITY', 'CONVERSATION', 'AGENT', 'REVISION', 'STATE', 'TURNS', 'FAILED'];
  const rows = records.map((r) => [
    shortTime(r.lastActivityTime),
    r.conversationId,
    r.agentId,
    String(r.revision),
    state(r),
    String(r.turns),
    r.failed ? 'yes' : 'no',
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  for (const row of [header, ...rows])
    io.out(
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    );
}

function printConversation(c: ConversationWithInteractions, evaluations: EvaluationRecord[], io: CliIo): void {
  const field = (name: string, text: string) => io.out(`${name.padEnd(14)}${text}`);
  field('Conversation', c.conversationId);
  field('Agent', c.agentId);
  field('Revision', `${c.revision} (${state(c)}${c.endTime ? ` at ${c.endTime}` : ''})`);
  field('Time', `${c.startTime} → ${c.lastActivityTime} (${c.turns} turns)`);
  field('Status', c.failed ? 'failed (its last interaction failed)' : 'ok');
  io.out('');
  io.out('Turns');
  for (const [index, turn] of c.interactions.entries()) {
    const question = turn.input
      .flatMap((message) => message.parts)
      .flatMap((part) => (part.type === 'text' && typeof part.content === 'string' ? [part.content] : []))
      .join(' ');
    io.out(`  ${index + 1}. ${shortTime(turn.startTime)}  ${turn.interactionId}${turn.failed ? '  (failed)' : ''}`);
    if (question) io.out(`     → ${oneLine(question, TEXT_WIDTH)}`);
    io.out(`     ← ${turn.finalResponseText ? oneLine(turn.finalResponseText, TEXT_WIDTH) : '(no reply)'}`);
    if (turn.toolCalls.length > 0) io.out(`     tools: ${turn.toolCalls.map((call) => call.name).join(', ')}`);
  }
  io.out('');
  io.out('Evaluations');
  if (evaluations.length === 0) {
    io.out(c.open ? '  (none yet: a conversation is evaluated once it is over)' : '  (none)');
    return;
  }
  for (const record of evaluations) {
    const revision = record.subject?.kind === 'conversation' ? record.subject.revision : '?';
    const outcome = record.outcome;
    const detail =
      outcome.type === 'verdict'
        ? outcome.evaluation.explanation
        : outcome.type === 'inconclusive'
          ? outcome.reason
          : outcome.error;
    io.out(`  revision ${revision}  ${record.evaluatorId}  ${outcomeWord(record)}  ${oneLine(detail, TEXT_WIDTH)}`);
  }
}
