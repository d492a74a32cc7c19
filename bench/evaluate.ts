/**
 * `npm run bench:evaluate` — the evaluation runtime under sustained ingest (docs/benchmarks.md).
 *
 * 1. Sustained: the real collector (`evalon collector`, its own process, SQLite ledger) with six
 *    code evaluators bound to the agent, fed by a paced sender process at --rate interactions/s
 *    (bodies of 100 agent traces × 10 spans, protobuf, realistic attributes). Figures: verdict lag
 *    (triggeredAt → completedAt of every EvaluationRecord: from the moment the evaluation
 *    processor receives the just-recorded interaction to the moment the outcome is committed)
 *    p50/p90/p99/max, evaluations/s, the collector's CPU.
 * 2. Saturated: ingest alone (no evaluator bound) against ingest with the six evaluators, each a
 *    fresh collector fed as fast as it acknowledges (8 concurrent requests); acknowledged spans/s
 *    compared, runs alternating.
 *
 * Options: --rate N (interactions/s, default 1000), --seconds N (default 30), --saturate-seconds N
 * (default 15), --rounds N (saturated runs of each kind, alternating; default 3), --skip-saturate,
 * --settle DURATION (the interactions processor's settle window, default 2s; it also sets how often
 * completed interactions are handed on: every settle/4, at most every 250 ms).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnCollector, type CollectorProcess } from '../test/helpers/collector-process.ts';
import {
  EVALUATOR_COUNT,
  EVALUATORS,
  EXAMPLES,
  fmt,
  line,
  SPANS_PER_BODY,
  TRACES_PER_BODY,
  writeTemplateBody,
} from './ingest-support.ts';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '30' },
    'saturate-seconds': { type: 'string', default: '15' },
    'skip-saturate': { type: 'boolean', default: false },
    settle: { type: 'string', default: '2s' },
    rounds: { type: 'string', default: '3' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const saturateSeconds = Number(values['saturate-seconds']);
const rounds = Number(values.rounds);

const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-evaluate-'));

const { template, templateFile, offsetsFile } = await writeTemplateBody(dir);

const cpuModel = cpus()[0]?.model ?? 'unknown';
line(`Evalon evaluation benchmark — ${cpus().length} vCPU (${cpuModel}), Node ${process.version}`);
line(
  `body: ${SPANS_PER_BODY} spans = ${TRACES_PER_BODY} agent interactions, ` +
    `${(template.length / 1024 / 1024).toFixed(2)} MiB protobuf; ` +
    `${EVALUATOR_COUNT} code evaluators bound to each interaction`,
);

function configYaml(name: string, evaluators: string): string {
  return `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions: { settle: ${values.settle}, decision_wait: 30s }
  evaluation:
    ledger:
      sqlite: { path: ${join(dir, `${name}.db`)} }
    modules: [ ${EXAMPLES} ]
    concurrency: 64
    evaluators:${evaluators || ' {}'}
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`;
}

async function startCollector(name: string, evaluators: string): Promise<CollectorProcess> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, configYaml(name, evaluators));
  return spawnCollector(file);
}

function runSender(script: string, options: Record<string, unknown>): Promise<Record<string, number>> {
  const sender = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [sender, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`sender exited with ${code}`)),
    );
  });
}

interface Stats {
  interactions: number;
  pendingTraces: number;
  evaluation: {
    triggered: number;
    recorded: number;
    waiting: number;
    running: number;
    overflow: boolean;
    intakeDeferred?: number;
  };
}
async function stats(collector: CollectorProcess): Promise<Stats> {
  return (await (await fetch(`${collector.apiUrl}/api/v1/stats`)).json()) as Stats;
}

/** CPU seconds the process (all its threads) has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

// 1. Sustained rate with evaluators.
{
  const collector = await startCollector('sustained', EVALUATORS);
  const bodiesPerSecond = rate / TRACES_PER_BODY;
  await runSender('./evaluate-sender.ts', {
    url: collector.otlpUrl,
    templateFile,
    offsetsFile,
    bodiesPerSecond,
    seconds: 3,
    counterBase: 1 << 30,
  }); // warm-up
  await waitUntil(async () => (await stats(collector)).pendingTraces === 0, 'the warm-up to be recorded');
  const measuredFrom = Date.now();
  const cpu0 = cpuSeconds(collector.child.pid!);
  const t0 = performance.now();
  const sent = await runSender('./evaluate-sender.ts', {
    url: collector.otlpUrl,
    templateFile,
    offsetsFile,
    bodiesPerSecond,
    seconds,
  });
  const expected = (await stats(collector)).evaluation.triggered + 0;
  await waitUntil(async () => {
    const s = await stats(collector);
    return (
      s.pendingTraces === 0 &&
      s.evaluation.waiting === 0 &&
      s.evaluation.running === 0 &&
      !s.evaluation.overflow &&
      s.evaluation.recorded >= s.evaluation.triggered
    );
  }, 'every evaluation to be recorded');
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(collector.child.pid!) - cpu0;
  const final = await stats(collector);
  collector.child.kill('SIGTERM');
  await collector.exited;

  const db = new DatabaseSync(join(dir, 'sustained.db'), { readOnly: true });
  const rows = db.prepare('SELECT record FROM evaluations').all() as { record: string }[];
  db.close();
  const measured = rows
    .map((row) => JSON.parse(row.record) as { triggeredAt: string; completedAt: string; outcome: { type: string } })
    .filter((r) => Date.parse(r.triggeredAt) >= measuredFrom);
  const lags = measured.map((r) => Date.parse(r.completedAt) - Date.parse(r.triggeredAt)).sort((a, b) => a - b);
  const first = measured.reduce((min, r) => Math.min(min, Date.parse(r.triggeredAt)), Infinity);
  const last = measured.reduce((max, r) => Math.max(max, Date.parse(r.completedAt)), 0);
  const interactions = sent.acknowledged * TRACES_PER_BODY;
  line(
    `sustained: ${fmt(interactions / seconds)} interactions/s offered for ${seconds} s ` +
      `(${sent.acknowledged}/${sent.sent} bodies acknowledged, request p50 ${sent.p50Ms.toFixed(1)} ms, p99 ` +
      `${sent.p99Ms.toFixed(1)} ms)`,
  );
  line(
    `  evaluations recorded: ${fmt(measured.length)} (${measured.filter((r) => r.outcome.type === 'failed').length} ` +
      `failed outcomes), ${fmt(measured.length / ((last - first) / 1000))} evaluations/s`,
  );
  line(
    `  verdict lag (triggered → recorded): p50 ${percentile(lags, 0.5)} ms, p90 ${percentile(lags, 0.9)} ms, p99 ` +
      `${percentile(lags, 0.99)} ms, max ${lags.at(-1)} ms`,
  );
  const slow = measured.filter((r) => Date.parse(r.completedAt) - Date.parse(r.triggeredAt) > 50);
  const windows = [...new Set(slow.map((r) => Math.floor((Date.parse(r.triggeredAt) - measuredFrom) / 250) / 4))];
  const slowShare = ((slow.length / measured.length) * 100).toFixed(1);
  const shownWindows = windows.slice(0, 12).map((w) => `${w.toFixed(2)}s`);
  line(
    `  over 50 ms: ${fmt(slow.length)} evaluations (${slowShare}%), triggered in ${windows.length} quarter-seconds: ` +
      `${shownWindows.join(' ')}${windows.length > 12 ? ' …' : ''}`,
  );
  line(
    `  collector CPU: ${(cpu / elapsed).toFixed(2)} cores on average over ${elapsed.toFixed(1)} s (receive, ` +
      `assemble, ledger writer thread, evaluations); triggered ${fmt(final.evaluation.triggered)} (${fmt(expected)} ` +
      'when the sender stopped); intake deferred to a saturated event loop ' +
      `${fmt(final.evaluation.intakeDeferred ?? 0)} times`,
  );
}

// 2. Saturated ingest, without and with evaluators, alternating (the VM is noisy).
if (!values['skip-saturate']) {
  const results: Record<string, number[]> = { 'ingest-only': [], 'with-evaluators': [] };
  for (let round = 1; round <= rounds; round++) {
    for (const [name, evaluators] of [
      ['ingest-only', ''],
      ['with-evaluators', EVALUATORS],
    ] as const) {
      const collector = await startCollector(`${name}-${round}`, evaluators);
      const base = { url: collector.otlpUrl, templateFile, offsetsFile, spansPerBody: SPANS_PER_BODY, concurrency: 8 };
      await runSender('./ingest-sender.ts', { ...base, seconds: 2, counterBase: 1 << 30 });
      const before = await stats(collector);
      const result = await runSender('./ingest-sender.ts', { ...base, seconds: saturateSeconds });
      const after = await stats(collector);
      results[name].push(result.spansPerSecond);
      const evaluated = after.evaluation.recorded - before.evaluation.recorded;
      line(
        `saturated #${round}, ${name}: ${fmt(result.spansPerSecond)} spans/s acknowledged ` +
          `(${fmt(result.spansPerSecond / 10)} interactions/s), p99 ${result.p99Ms.toFixed(1)} ms a request` +
          (evaluators
            ? `; ${fmt(evaluated / result.elapsed)} evaluations/s recorded meanwhile, ` +
              `${fmt(after.evaluation.triggered - after.evaluation.recorded)} queued at the end`
            : ''),
      );
      collector.child.kill('SIGTERM');
      await collector.exited;
    }
  }
  const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
  line(
    '  ingest with evaluators: ' +
      `${((mean(results['with-evaluators']) / mean(results['ingest-only'])) * 100).toFixed(0)}% of ingest alone ` +
      `(means of ${rounds} runs each: ${fmt(mean(results['with-evaluators']))} against ` +
      `${fmt(mean(results['ingest-only']))} spans/s)`,
  );
}
rmSync(dir, { recursive: true, force: true });
