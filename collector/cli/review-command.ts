/**
 * `evalon review list|show|submit`: the human review queue through the collector's HTTP API
 * (`/api/v1/reviews…`), as a table or as JSON. `submit` posts a reviewer's verdict; the API
 * answers with the recorded evaluation, or refuses (409) when the review took a verdict already,
 * expired, or is claimed by someone else — printed with the verdict recorded, exit 1.
 */
import { parseArgs } from 'node:util';
import type { ReviewRecord } from '../ledger/review-store.ts';
import type { ConversationWithInteractions, EvaluationRecord, InteractionRecord } from '../../src/model/records.ts';
import {
  apiAccess,
  apiBase,
  CommandFailure,
  getJson,
  postJson,
  type ApiAccess,
  type CliIo,
  usage,
} from './api-client.ts';
import { type CliCommand, formatHelp } from './command.ts';
import { outcomeWord } from './evaluations-command.ts';
import { printRecord } from './ledger-command.ts';
import { REVIEW_HELP, REVIEW_SUBCOMMAND_HELP } from './review-help.ts';

const DETAIL_WIDTH = 60;

const OPTIONS = {
  status: { type: 'string' },
  agent: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  pass: { type: 'boolean' },
  fail: { type: 'boolean' },
  score: { type: 'string' },
  label: { type: 'string' },
  explanation: { type: 'string' },
  reviewer: { type: 'string' },
  json: { type: 'boolean' },
  api: { type: 'string' },
  token: { type: 'string' },
  'ca-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
type Values = ReturnType<typeof parseOptions>['values'];
/** Which options each subcommand takes (besides --json and the API's). */
const TAKES: Readonly<Record<string, readonly string[]>> = {
  list: ['status', 'agent', 'limit', 'cursor'],
  show: [],
  submit: ['pass', 'fail', 'score', 'label', 'explanation', 'reviewer'],
};

const subcommand = (name: string): CliCommand => ({
  help: REVIEW_SUBCOMMAND_HELP[name]!,
  run: (args, io) => runReviewCommand([name, ...args], io),
});

export const reviewCommand: CliCommand = {
  help: REVIEW_HELP,
  run: (args, io) => runReviewCommand(args, io),
  subcommands: Object.fromEntries(Object.keys(REVIEW_SUBCOMMAND_HELP).map((name) => [name, subcommand(name)])),
};

export async function runReviewCommand(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  try {
    if (name === undefined || name === 'help') {
      (name === undefined ? io.err : io.out)(formatHelp(['review'], reviewCommand));
      return name === undefined ? 2 : 0;
    }
    if (!Object.hasOwn(REVIEW_SUBCOMMAND_HELP, name))
      throw usage(`evalon review: unknown subcommand "${name}" (expected list, show or submit)`);
    const where = `evalon review ${name}`;
    const { values, positionals } = parseOptions(rest, where);
    for (const option of Object.keys(values)) {
      const general = ['json', 'api', 'token', 'ca-file', 'help'].includes(option);
      if (!general && !TAKES[name]!.includes(option)) throw usage(`${where}: --${option} does not apply to ${name}`);
    }
    const api = apiBase(values.api, where);
    const access = apiAccess({ token: values.token, caFile: values['ca-file'] }, where);
    if (name === 'list') {
      if (positionals.length > 0) throw usage(`${where}: unexpected argument "${positionals[0]}"`);
      return await list(api, access, values, where, io);
    }
    if (positionals.length !== 1)
      throw usage(
        positionals.length === 0 ? `${where}: missing <reviewId>` : `${where}: unexpected argument "${positionals[1]}"`,
      );
    const reviewId = positionals[0]!;
    return name === 'show'
      ? await show(api, access, reviewId, values, where, io)
      : await submit(api, access, reviewId, values, where, io);
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
      throw usage(`${where}: unknown option ${option} (see evalon review --help)`);
    if (option && code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw usage(`${where}: ${option} ${message.includes('does not take') ? 'takes no value' : 'needs a value'}`);
    throw usage(`${where}: ${message.split('\n')[0]}`);
  }
}

async function list(api: URL, access: ApiAccess, values: Values, where: string, io: CliIo): Promise<number> {
  const url = new URL('api/v1/reviews', api);
  for (const key of ['status', 'agent', 'limit', 'cursor'] as const) {
    if (values[key] !== undefined) url.searchParams.set(key, values[key]);
  }
  const body = (await getJson(url, where, () => undefined, access)) as {
    reviews?: ReviewRecord[];
    nextCursor?: string;
  };
  if (!Array.isArray(body?.reviews)) throw new CommandFailure(`${where}: ${url} did not answer a review list`, 1);
  if (values.json) {
    io.out(JSON.stringify(body, null, 2));
    return 0;
  }
  const status = values.status ?? 'open';
  if (body.reviews.length === 0) {
    io.out(`no ${status} reviews`);
    return 0;
  }
  const header = ['QUEUED', 'REVIEW', 'AGENT', 'ENTRY', 'STATUS', 'WHY'];
  const rows = body.reviews.map((review) => [
    review.createdAt.replace(/\.\d+Z$/, 'Z'),
    review.reviewId,
    review.agentId,
    review.entryId,
    review.status === 'claimed' ? `claimed by ${review.claim?.reviewer}` : review.status,
    clip(reasonOf(review)),
  ]);
  table(header, rows, io);
  if (body.nextCursor) io.out(`more: evalon review list --status ${status} --cursor ${body.nextCursor}`);
  return 0;
}

async function show(
  api: URL,
  access: ApiAccess,
  reviewId: string,
  values: Values,
  where: string,
  io: CliIo,
): Promise<number> {
  const url = new URL(`api/v1/reviews/${encodeURIComponent(reviewId)}`, api);
  const body = (await getJson(
    url,
    where,
    (status) => (status === 404 ? `review ${reviewId} not found` : undefined),
    access,
  )) as {
    review: ReviewRecord;
    interaction?: InteractionRecord;
    conversation?: ConversationWithInteractions;
  };
  if (values.json) {
    io.out(JSON.stringify(body, null, 2));
    return 0;
  }
  const { review } = body;
  const field = (name: string, text: string) => io.out(`${name.padEnd(14)}${text}`);
  field('Review', review.reviewId);
  field('Entry', review.entryId);
  field(
    'Status',
    review.claim ? `${review.status} by ${review.claim.reviewer} until ${review.claim.until}` : review.status,
  );
  field('Why', reasonOf(review));
  field('Queued', review.createdAt);
  if (review.dueAt) field('Due', review.dueAt);
  if (review.routedVerdict)
    field('Routed', `${review.routedVerdict.evaluatorId}: ${verdictLine(review.routedVerdict)}`);
  if (review.record) field('Verdict', verdictLine(review.record));
  io.out('');
  const subject = review.subject;
  if (subject.kind === 'conversation') {
    field('Conversation', `${subject.conversationId} of ${subject.agentId}, revision ${subject.revision}`);
    if (!body.conversation) io.out('(the conversation is no longer in the ledger)');
    for (const [index, turn] of (body.conversation?.interactions ?? []).entries()) {
      io.out(`\n— turn ${index + 1} —`);
      printRecord(turn, io);
    }
  } else if (body.interaction) printRecord(body.interaction, io);
  else io.out(`(interaction ${review.interactionId} is no longer in the ledger)`);
  return 0;
}

async function submit(
  api: URL,
  access: ApiAccess,
  reviewId: string,
  values: Values,
  where: string,
  io: CliIo,
): Promise<number> {
  if (values.pass === values.fail) throw usage(`${where}: give one of --pass or --fail`);
  if (values.explanation === undefined || values.explanation.trim() === '')
    throw usage(`${where}: --explanation is required (why the verdict)`);
  const reviewer = values.reviewer ?? process.env.USER;
  if (!reviewer) throw usage(`${where}: --reviewer is required ($USER is not set)`);
  const verdict: Record<string, unknown> = { passed: values.pass === true, explanation: values.explanation, reviewer };
  if (values.score !== undefined) {
    const score = Number(values.score);
    if (values.score.trim() === '' || !Number.isFinite(score) || score < 0 || score > 1)
      throw usage(`${where}: --score must be a number from 0 to 1 (got "${values.score}")`);
    verdict.score = score;
  }
  if (values.label !== undefined) verdict.label = values.label;
  const url = new URL(`api/v1/reviews/${encodeURIComponent(reviewId)}`, api);
  const answer = await postJson(
    url,
    verdict,
    where,
    (status) => (status === 404 ? `review ${reviewId} not found` : undefined),
    access,
    [409],
  );
  if (values.json) io.out(JSON.stringify(answer.body, null, 2));
  if (answer.status === 409) {
    const refusal = answer.body as { error?: string; record?: EvaluationRecord };
    if (!values.json) {
      io.err(`${where}: ${refusal.error ?? 'refused'}`);
      if (refusal.record) io.err(`recorded: ${verdictLine(refusal.record)}`);
    }
    return 1;
  }
  if (answer.status === 202) {
    if (!values.json) io.out(`accepted: the verdict on review ${reviewId} will be recorded shortly`);
    return 0;
  }
  if (!values.json) io.out(`recorded: ${verdictLine(answer.body as EvaluationRecord)}`);
  return 0;
}

function reasonOf(review: ReviewRecord): string {
  const reason = review.reason;
  if (reason.kind !== 'routed') return 'sampled (audit)';
  const score = reason.score !== undefined ? `, score ${reason.score}` : '';
  return `routed: ${reason.after} recorded ${reason.outcome}${score}`;
}

function verdictLine(record: EvaluationRecord): string {
  const outcome = record.outcome;
  const evaluation = outcome.type === 'verdict' ? outcome.evaluation : undefined;
  const reviewer = evaluation?.attributes?.['evalon.reviewer'];
  const parts = [
    outcomeWord(record),
    evaluation?.score !== undefined ? `score ${evaluation.score}` : undefined,
    evaluation?.label !== undefined ? `label ${evaluation.label}` : undefined,
    reviewer !== undefined ? `by ${String(reviewer)}` : undefined,
  ].filter(Boolean);
  const text =
    outcome.type === 'verdict'
      ? outcome.evaluation.explanation
      : outcome.type === 'inconclusive'
        ? outcome.reason
        : outcome.error;
  return `${parts.join(', ')} — ${clip(text)}`;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > DETAIL_WIDTH ? `${flat.slice(0, DETAIL_WIDTH - 1)}…` : flat;
}

function table(header: string[], rows: string[][], io: CliIo): void {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows])
    io.out(
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    );
}
