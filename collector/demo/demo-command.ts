/**
 * `evalon demo` — the whole loop offline in one command: a collector with evaluators bound to an
 * example support agent, the agent answering questions against a local scripted model (which also
 * plays the LLM judge), and the verdicts printed as they arrive. No API key, no network.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../cli/args.ts';
import type { CliIo } from '../cli/cli-io.ts';
import type { CliCommand } from '../cli/command.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { DEFAULT_DEMO_PORTS, type DemoPorts } from './demo-config.ts';
import { DEMO_AGENT_ID, DEMO_QUESTIONS, demoConversationId, startDemo, type Demo } from './demo.ts';
import { conversationSource, interactionSource, printVerdicts, type EvaluationView } from './verdict-printer.ts';

/** Rounds of questions when `--rounds` is not given. */
const DEFAULT_ROUNDS = 2;

export const demoCommand: CliCommand = {
  help: {
    usage: '[--rounds N] [--keep-running] [--ephemeral]',
    description:
      'The whole loop offline: a collector with evaluators bound to an example support agent, the agent answering ' +
      'questions against a scripted model (which also plays the LLM judges), and the verdicts as they are recorded. ' +
      'No API key, no network.',
    options: [
      {
        flag: '--rounds N',
        description: 'times the agent answers the demo questions',
        default: String(DEFAULT_ROUNDS),
      },
      { flag: '--keep-running', description: 'leave the collector running afterwards to explore it (Ctrl-C stops it)' },
      {
        flag: '--ephemeral',
        description: 'listen on free ports instead of 4318 (OTLP), 4319 (API) and 9464 (metrics)',
      },
    ],
    examples: ['evalon demo --rounds 1 --keep-running'],
  },
  run: (args, io) => runDemoCommand(args, io),
};

function parseDemoArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        rounds: { type: 'string', default: String(DEFAULT_ROUNDS) },
        'keep-running': { type: 'boolean', default: false },
        ephemeral: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new UsageError(`evalon demo: ${(error as Error).message}`);
  }
}

export async function runDemoCommand(args: string[], io: CliIo): Promise<number> {
  const values = parseDemoArgs(args);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new UsageError(`evalon demo: --rounds must be a positive integer (got ${values.rounds})`);
  const ports: DemoPorts = values.ephemeral ? { otlp: 0, api: 0, prometheus: 0 } : DEFAULT_DEMO_PORTS;

  // Ctrl-C stops the demo cleanly at any point: the loop ends, everything shuts down, the
  // temporary ledger is removed.
  let interrupted = false;
  let wake: () => void = () => {};
  const onSignal = () => {
    interrupted = true;
    wake();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let demo: Demo | undefined;
  try {
    demo = await startDemo(ports);
    const { collector, apiUrl } = demo;
    io.out(
      `evalon demo: collector on ${demo.otlpUrl} (OTLP) and ${apiUrl} (API); evaluators: ` +
        'interaction-quality-evaluator, reply-length, tool-call-required, contains, regex, ' +
        'llm-judge (its scripted judge garbles one verdict), criteria-judge (durable), human-review/audit (answered ' +
        'by the demo reviewer through the API); per conversation: repeated-question-evaluator',
    );
    io.out(`agent: support-agent (Anthropic SDK tool runner) against a scripted model at ${demo.modelUrl}\n`);
    for (let round = 0; round < rounds && !interrupted; round++) {
      await demo.askRound(round, (question, answer) => {
        if (answer instanceof Error) {
          io.out(`→ ${question}\n  support-agent failed: ${answer.message.split('\n')[0]}`);
        } else io.out(`→ ${question}\n  support-agent: ${answer}`);
      });
    }
    if (interrupted) return 130;
    await demo.flush();
    io.out('\nverdicts (as they are recorded):');
    // Every interaction of the demo, the failed one included (its caller got an error, not an id),
    // then each round's conversation (both its revisions).
    const interactions = await demoInteractions(apiUrl, rounds * DEMO_QUESTIONS.length);
    // The demo's reviewer answers the human reviews meanwhile: their verdicts print too.
    const sources = [
      ...interactions.map(({ interactionId, question }) => interactionSource(interactionId, question)),
      ...Array.from({ length: rounds }, (_, round) => conversationSource(demoConversationId(round), DEMO_AGENT_ID)),
    ];
    const seen = await printVerdicts(apiUrl, sources, io, { timeoutMs: 20_000 });
    summarize(seen, io);
    await printAgreement(apiUrl, io);

    io.out(`\nwhere to look:`);
    io.out(`  ledger:      npx evalon ledger list --api ${apiUrl}   (or GET ${apiUrl}/api/v1/interactions)`);
    io.out(`  evaluations: GET ${apiUrl}/api/v1/interactions/<id>/evaluations`);
    io.out(
      `  conversations: npx evalon ledger conversations --api ${apiUrl}   ` +
        `(or GET ${apiUrl}/api/v1/conversations/${demoConversationId(0)}/evaluations)`,
    );
    io.out(`  reviews:     ${apiUrl}/ui/ in a browser, or npx evalon review list --status done --api ${apiUrl}`);
    if (collector.prometheusAddress)
      io.out(`  metrics:     http://${collector.prometheusAddress.host}:${collector.prometheusAddress.port}/metrics`);
    io.out(
      `  dashboards:  dashboards/json/evalon-overview.json, provisioning in dashboards/provisioning (docs/grafana.md)`,
    );
    if (values['keep-running'] && !interrupted) {
      io.out('\nthe collector keeps running; Ctrl-C stops it');
      await new Promise<void>((resolve) => (wake = resolve));
    }
    return seen.length > 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await demo?.close();
  }
}

async function demoInteractions(
  apiUrl: string,
  expected: number,
): Promise<Array<{ interactionId: string; question: string }>> {
  const deadline = Date.now() + 15_000;
  let records: InteractionRecord[] = [];
  while (Date.now() < deadline) {
    records = (
      (await (await fetch(`${apiUrl}/api/v1/interactions?agent=support-agent&limit=1000`)).json()) as {
        interactions: InteractionRecord[];
      }
    ).interactions;
    if (records.length >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return records
    .sort((a, b) => a.startTime.localeCompare(b.startTime))
    .map((record) => ({
      interactionId: record.interactionId,
      question: (record.failed ? '[failed] ' : '') + questionOf(record),
    }));
}

function questionOf(record: InteractionRecord): string {
  for (const message of record.input) {
    for (const part of message.parts) if (part.type === 'text' && typeof part.content === 'string') return part.content;
  }
  return record.interactionId;
}

/** The agreement between the LLM judge and the demo's reviewer, once their verdicts are counted. */
async function printAgreement(apiUrl: string, io: CliIo): Promise<void> {
  type Pair = { a: string; b: string; count: number; rate: number | null; kappa: number | null };
  let pairs: Pair[] = [];
  // The agreement counts a verdict just after it is recorded: a moment for the last ones.
  for (const deadline = Date.now() + 3_000; Date.now() < deadline; ) {
    ({ pairs } = (await (await fetch(`${apiUrl}/api/v1/agreement`)).json()) as { pairs: Pair[] });
    if (pairs.every((pair) => pair.count > 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const pair of pairs) {
    const figure = (value: number | null) => (value === null ? 'undefined' : value.toFixed(2));
    io.out(
      `agreement ${pair.a} ~ ${pair.b}: ${pair.count} subjects, rate ${figure(pair.rate)}, kappa ${figure(pair.kappa)}`,
    );
  }
}

function summarize(evaluations: EvaluationView[], io: CliIo): void {
  const count = (outcome: EvaluationView['outcome']) =>
    evaluations.filter((evaluation) => evaluation.outcome === outcome).length;
  const parts = (['pass', 'fail', 'inconclusive', 'error'] as const).map((outcome) => `${count(outcome)} ${outcome}`);
  io.out(`\n${evaluations.length} evaluations: ${parts.join(', ')}`);
}
