/**
 * `evalon demo` — the whole loop offline in one command: a collector with evaluators bound to an
 * example support agent, the agent (Anthropic SDK tool runner, instrumented with
 * `evalon/instrumentation`) answering questions against a local scripted model, and the verdicts
 * printed as they arrive. No API key, no network.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { loadConfig } from '../config/index.ts';
import { startCollector, type RunningCollector } from '../service.ts';
import { silentLogger } from '../logger.ts';
import { UsageError } from '../cli/args.ts';
import type { CliIo } from '../cli/main.ts';
import { register } from '../../src/instrumentation/index.ts';
import { createScriptedModel } from '../../src/testing/scripted-model.ts';
import { createSupportAgent } from '../../examples/support-agent/support-agent.ts';
import { supportReply } from '../../examples/support-agent/scripted-replies.ts';
import { DEFAULT_DEMO_PORTS, demoConfigYaml, type DemoPorts } from './demo-config.ts';
import { printVerdicts, type EvaluationView } from './verdict-printer.ts';
import type { InteractionRecord } from '../model/interaction.ts';

/** Questions of the demo: some answers pass every evaluator, some fail one, one call fails. */
export const DEMO_QUESTIONS: ReadonlyArray<{ question: string; fail?: boolean }> = [
  { question: 'Where is my order A-17?' },
  { question: 'Has my parcel shipped yet?' },
  { question: 'Can you check order B-2 for me?' },
  { question: 'Where is order C-404?' },
  { question: 'My order A-17 has not arrived, where is it?', fail: true },
  { question: 'Did order B-2 ship?' },
];

export async function runDemoCommand(args: string[], io: CliIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        rounds: { type: 'string', default: '2' },
        'keep-running': { type: 'boolean', default: false },
        ephemeral: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(`evalon demo: ${(error as Error).message}`);
  }
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new UsageError(`evalon demo: --rounds must be a positive integer (got ${values.rounds})`);
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
  const dir = mkdtempSync(join(tmpdir(), 'evalon-demo-'));
  const configFile = join(dir, 'demo-config.yaml');
  writeFileSync(configFile, demoConfigYaml(dir, ports));
  const model = await createScriptedModel();
  let collector: RunningCollector | undefined;
  let telemetry: ReturnType<typeof register> | undefined;
  try {
    collector = await startCollector(loadConfig([configFile]).config, { logger: silentLogger });
    const otlpUrl = `http://${collector.otlpAddress!.host}:${collector.otlpAddress!.port}`;
    const apiUrl = `http://${collector.apiAddress!.host}:${collector.apiAddress!.port}`;
    io.out(`evalon demo: collector on ${otlpUrl} (OTLP) and ${apiUrl} (API); evaluators: reply-length, tool-call-required, contains`);
    io.out(`agent: support-agent (Anthropic SDK tool runner) against a scripted model at ${model.baseURL}\n`);

    // One question's model call fails (HTTP 500): that interaction is recorded as failed.
    const failingCalls = new Set<number>();
    let call = 0;
    model.respondWith((request) => {
      call++;
      return failingCalls.has(call) ? { errorStatus: 500 } : supportReply(request);
    });
    telemetry = register({ endpoint: otlpUrl, serviceName: 'evalon-demo', captureContent: true, scheduledDelayMillis: 200, shutdownOnExit: false });
    const agent = createSupportAgent({ client: new Anthropic({ apiKey: 'demo', baseURL: model.baseURL, maxRetries: 0 }), model: 'claude-demo' });

    for (let round = 0; round < rounds && !interrupted; round++) {
      for (const { question, fail } of DEMO_QUESTIONS) {
        if (interrupted) break;
        if (fail) failingCalls.add(call + 1);
        try {
          const { result } = await agent.ask(question, { conversationId: `demo-${round}` });
          io.out(`→ ${question}\n  support-agent: ${result}`);
        } catch (error) {
          io.out(`→ ${question}\n  support-agent failed: ${(error as Error).message.split('\n')[0]}`);
        }
      }
    }
    if (interrupted) return 130;
    await telemetry.forceFlush();
    io.out('\nverdicts (as they are recorded):');
    // Every interaction of the demo, the failed one included (its caller got an error, not an id).
    const expected = rounds * DEMO_QUESTIONS.length;
    const interactions = await demoInteractions(apiUrl, expected);
    const seen = await printVerdicts(apiUrl, interactions, io, { timeoutMs: 20_000 });
    summarize(seen, io);

    io.out(`\nwhere to look:`);
    io.out(`  ledger:      npx evalon ledger list --api ${apiUrl}   (or GET ${apiUrl}/api/v1/interactions)`);
    io.out(`  evaluations: GET ${apiUrl}/api/v1/interactions/<id>/evaluations`);
    if (collector.prometheusAddress) io.out(`  metrics:     http://${collector.prometheusAddress.host}:${collector.prometheusAddress.port}/metrics`);
    io.out(`  dashboards:  dashboards/json/evalon-overview.json, provisioning in dashboards/provisioning (docs/grafana.md)`);
    if (values['keep-running'] && !interrupted) {
      io.out('\nthe collector keeps running; Ctrl-C stops it');
      await new Promise<void>((resolve) => (wake = resolve));
    }
    return seen.length > 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await telemetry?.shutdown();
    await collector?.shutdown();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function demoInteractions(apiUrl: string, expected: number): Promise<Array<{ interactionId: string; question: string }>> {
  const deadline = Date.now() + 15_000;
  let records: InteractionRecord[] = [];
  while (Date.now() < deadline) {
    records = ((await (await fetch(`${apiUrl}/api/v1/interactions?agent=support-agent&limit=1000`)).json()) as { interactions: InteractionRecord[] }).interactions;
    if (records.length >= expected) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return records
    .sort((a, b) => a.startTime.localeCompare(b.startTime))
    .map((record) => ({ interactionId: record.interactionId, question: (record.failed ? '[failed] ' : '') + questionOf(record) }));
}

function questionOf(record: InteractionRecord): string {
  for (const message of record.input) {
    for (const part of message.parts) if (part.type === 'text' && typeof part.content === 'string') return part.content;
  }
  return record.interactionId;
}

function summarize(evaluations: EvaluationView[], io: CliIo): void {
  const counts = new Map<string, number>();
  for (const evaluation of evaluations) counts.set(evaluation.outcome, (counts.get(evaluation.outcome) ?? 0) + 1);
  io.out(`\n${evaluations.length} evaluations: ${[...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ')}`);
}
