/**
 * `npm run bench:judge` — judge-bound evaluation: the runtime when every evaluation waits on a
 * model call.
 *
 * 1. Throughput: the real collector (`evalon collector`, its own process, SQLite ledger) with the
 *    built-in `llm-judge` bound to every interaction, judged by a scripted model (the Anthropic
 *    Messages API, local, in this process) that answers each call after a fixed latency. For each
 *    evaluation concurrency N, `--rounds` × N interactions are sent at once; evaluations/s is
 *    measured from the ledger (records ÷ first start → last completion) and compared with the
 *    ideal N ÷ latency.
 * 2. Memory: the same collector, the judge so slow (`--slow-ms`) that nothing completes, and
 *    `--queued` interactions sent: the collector's RSS with that many evaluations queued; then the
 *    same ingest into a collector with no evaluator bound, for comparison.
 *
 * 3. Request building: the CPU time `llm-judge` spends turning an interaction with a 2 MB tool
 *    result (a fetched web page) into its request — mapping the record, rendering the transcript
 *    (every value JSON-encoded), shortening it to the default `max_input_tokens` — averaged over
 *    `--builds` builds after a warm-up, in this process (goal: under 20 ms a build).
 *
 * Interactions are the realistic spans of `bench:ingest` (10 spans, ~3 KB of content on the model
 * calls), sent by `bench:evaluate`'s paced sender process.
 *
 * Options: see USAGE (`npm run bench:judge -- --help`). `--budget-tokens N` gives the judge's entry a
 * token budget of N per hour, large enough never to be spent: compared with a run without it, it
 * shows what checking and charging a budget costs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { judgeTranscript } from '../collector/evaluators/llm-judge-support.ts';
import { DEFAULT_MAX_INPUT_TOKENS, fitRequest } from '../src/judge/input-budget.ts';
import { buildRubricRequest } from '../src/judge/rubric-judge.ts';
import { testInteractionRecord } from '../src/testing/test-ledger-client.ts';
import { createScriptedModel, type ScriptedModel } from '../src/testing/scripted-model.ts';
import { spawnCollector, type CollectorProcess } from '../test/helpers/collector-process.ts';
import { TRACES_PER_BODY, writeTemplateBody } from './ingest-support.ts';

const USAGE = `Usage: npm run bench:judge -- [options]

  --latency-ms N       the scripted judge's reply latency (default 200)
  --concurrency N,N    evaluation concurrencies to measure (default 16,64)
  --rounds N           interactions sent per run, times the concurrency (default 25)
  --queued N           interactions queued for the memory run (default 100000)
  --slow-ms N          the judge's latency in the memory run, so nothing completes (default 600000)
  --builds N           request builds timed in the request-building run (default 50)
  --budget-tokens N    a token budget of N per hour on the judge's entry (default: none)
  --skip-throughput    leave out the throughput runs
  --skip-memory        leave out the memory run
  --skip-baseline      leave out the memory run without evaluators
  --skip-request-build leave out the request-building run
  --help               print this`;

const { values } = parseArgs({
  options: {
    help: { type: 'boolean', default: false },
    'budget-tokens': { type: 'string' },
    'latency-ms': { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '16,64' },
    rounds: { type: 'string', default: '25' },
    queued: { type: 'string', default: '100000' },
    'slow-ms': { type: 'string', default: '600000' },
    'skip-throughput': { type: 'boolean', default: false },
    'skip-memory': { type: 'boolean', default: false },
    'skip-baseline': { type: 'boolean', default: false },
    'skip-request-build': { type: 'boolean', default: false },
    builds: { type: 'string', default: '50' },
  },
});
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const latencyMs = Number(values['latency-ms']);
const budget =
  values['budget-tokens'] !== undefined
    ? `\n        budget: { tokens: ${Number(values['budget-tokens'])}, per: 1h }`
    : '';
const concurrencies = values.concurrency.split(',').map(Number);
const rounds = Number(values.rounds);
const queued = Number(values.queued);
const slowMs = Number(values['slow-ms']);
/** Of the template's 100 interactions, 20 are failed ones, which `llm-judge` (no trigger-on-failure) leaves out. */
const EVALUATED_PER_BODY = 80;

const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-judge-'));
const line = (text = '') => process.stdout.write(`${text}\n`);
const fmt = (n: number) => Math.round(n).toLocaleString('en');
const mib = (kib: number) => `${Math.round(kib / 1024)} MiB`;

// The template body and where its trace ids are, so the sender can make every copy new traces.
const { templateFile, offsetsFile } = await writeTemplateBody(dir);

// One scripted judge for every run: its reply latency is set per run.
let replyDelayMs = latencyMs;
const judge: ScriptedModel = (await createScriptedModel()).respondWith(() => ({
  delayMs: replyDelayMs,
  toolUse: [
    {
      name: 'record_verdict',
      input: { passed: true, score: 0.8, label: 'good', explanation: 'answers the refund question' },
    },
  ],
  usage: { input_tokens: 900, output_tokens: 40 },
}));
// The collector process inherits these: the built-in judges read their model from the environment.
process.env.ANTHROPIC_BASE_URL = judge.baseURL;
process.env.ANTHROPIC_API_KEY = 'scripted';

line(
  `Evalon judge-bound evaluation benchmark — ${cpus().length} vCPU ` +
    `(${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`,
);
line(
  'llm-judge bound to every interaction; scripted judge model in the benchmark process; interactions of 10 realistic ' +
    `spans, ${TRACES_PER_BODY} a body`,
);

function configYaml(name: string, concurrency: number, bound: boolean): string {
  return `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions: { settle: 200ms, decision_wait: 30s }
  evaluation:
    ledger:
      sqlite: { path: ${join(dir, `${name}.db`)} }
    concurrency: ${concurrency}
    evaluators:${bound ? JUDGE_BINDING : ' {}'}
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`;
}

const JUDGE_RUBRIC = "The agent answers the customer's question about their order.";
const JUDGE_BINDING = `
      llm-judge:
        rubric: ${JUDGE_RUBRIC}${budget}
        agents:
          support-agent: {}`;

async function startCollector(name: string, concurrency: number, bound = true): Promise<CollectorProcess> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, configYaml(name, concurrency, bound));
  return spawnCollector(file);
}

/** `bench:evaluate`'s paced sender: `bodies` copies of the template, new trace ids each. */
function send(
  collector: CollectorProcess,
  bodies: number,
  bodiesPerSecond: number,
  counterBase = 0,
): Promise<{ acknowledged: number; sent: number }> {
  const sender = fileURLToPath(new URL('./evaluate-sender.ts', import.meta.url));
  const options = {
    url: collector.otlpUrl,
    templateFile,
    offsetsFile,
    bodiesPerSecond,
    seconds: bodies / bodiesPerSecond,
    counterBase,
  };
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
  pendingTraces: number;
  interactions: number;
  evaluation: {
    triggered: number;
    recorded: number;
    waiting: number;
    claimed: number;
    running: number;
    overflow: boolean;
  };
}
/** Every interaction sent is recorded and its evaluation triggered (or left out for failing). */
const allTriggered = (s: Stats, bodies: number) =>
  s.pendingTraces === 0 &&
  s.interactions >= bodies * TRACES_PER_BODY &&
  s.evaluation.triggered >= bodies * EVALUATED_PER_BODY;
async function stats(collector: CollectorProcess): Promise<Stats> {
  return (await (await fetch(`${collector.apiUrl}/api/v1/stats`)).json()) as Stats;
}

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resident and peak resident memory of a process, in KiB. */
function memoryKiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

async function stop(collector: CollectorProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  collector.child.kill(signal);
  await collector.exited;
}

// 3 (first, as it needs no collector). Building the judge's request for an interaction with a 2 MB tool result.
if (!values['skip-request-build']) {
  let html = '<!doctype html><html><body>';
  for (let i = 0; html.length < 2_000_000; i++)
    html += `<div class="row"><p>Item ${i}: "quoted" text with a <a href="/items/${i}">link</a>.</p></div>\n`;
  html += '</body></html>';
  const record = testInteractionRecord({
    transcript: [
      { type: 'message', role: 'user', content: 'What does the report at https://example.com/report say?' },
      { type: 'tool_call', name: 'fetch_page', arguments: { url: 'https://example.com/report' }, result: html },
      { type: 'message', role: 'assistant', content: 'The report says revenue grew 12% year on year.' },
    ],
  });
  const build = () =>
    fitRequest({
      turns: [{ entries: judgeTranscript(record) }],
      maxInputTokens: DEFAULT_MAX_INPUT_TOKENS,
      build: (transcript) => buildRubricRequest({ rubric: JUDGE_RUBRIC }, transcript),
    });
  for (let i = 0; i < 5; i++) build(); // warm-up: compiled code, not first-call costs
  const builds = Number(values.builds);
  const walls: number[] = [];
  let omitted = 0;
  let requestChars = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < builds; i++) {
    const t0 = performance.now();
    const fitted = build();
    walls.push(performance.now() - t0);
    omitted = fitted.transcript.omittedChars;
    requestChars = fitted.requestChars;
  }
  const cpu = process.cpuUsage(cpu0);
  walls.sort((a, b) => a - b);
  line(
    `request build, 2 MB tool result (${fmt(html.length)} characters of HTML): ` +
      `${((cpu.user + cpu.system) / 1000 / builds).toFixed(2)} ms CPU a build (goal < 20 ms), wall p50 ` +
      `${walls[Math.floor(builds / 2)].toFixed(2)} ms, max ${walls.at(-1)!.toFixed(2)} ms over ${builds} builds; ` +
      `request ${fmt(requestChars)} characters, ${fmt(omitted)} omitted`,
  );
}

// 1. Judge-bound throughput: does N concurrent evaluations give N ÷ latency evaluations/s?
if (!values['skip-throughput']) {
  replyDelayMs = latencyMs;
  for (const concurrency of concurrencies) {
    const name = `throughput-${concurrency}`;
    const collector = await startCollector(name, concurrency);
    const bodies = Math.max(1, Math.ceil((rounds * concurrency) / EVALUATED_PER_BODY));
    const calls0 = judge.requests.length;
    const sent = await send(collector, bodies, 50);
    await waitUntil(async () => {
      const s = await stats(collector);
      return allTriggered(s, sent.acknowledged) && s.evaluation.recorded >= s.evaluation.triggered;
    }, 'every judge evaluation to be recorded');
    await stop(collector);
    const db = new DatabaseSync(join(dir, `${name}.db`), { readOnly: true });
    const rows = db.prepare('SELECT record FROM evaluations').all() as { record: string }[];
    db.close();
    const records = rows.map(
      (row) => JSON.parse(row.record) as { startedAt: string; completedAt: string; outcome: { type: string } },
    );
    const first = Math.min(...records.map((r) => Date.parse(r.startedAt)));
    const last = Math.max(...records.map((r) => Date.parse(r.completedAt)));
    const durations = records.map((r) => Date.parse(r.completedAt) - Date.parse(r.startedAt)).sort((a, b) => a - b);
    const perSecond = records.length / ((last - first) / 1000);
    const ideal = concurrency / (latencyMs / 1000);
    const verdicts = records.filter((r) => r.outcome.type === 'verdict').length;
    // Steady state: completions between the 10th and the 90th percentile, without ramp-up and drain.
    const completions = records.map((r) => Date.parse(r.completedAt)).sort((a, b) => a - b);
    const from = Math.floor(completions.length * 0.1);
    const to = Math.floor(completions.length * 0.9);
    const steady = (to - from) / ((completions[to] - completions[from]) / 1000);
    line(
      `throughput, concurrency ${concurrency}: ${fmt(records.length)} evaluations (${verdicts} verdicts, ` +
        `${judge.requests.length - calls0} judge calls) in ${((last - first) / 1000).toFixed(2)} s: ` +
        `${perSecond.toFixed(1)} evaluations/s, ideal ${ideal.toFixed(0)}/s (${concurrency} ÷ ${latencyMs} ms) → ` +
        `${((perSecond / ideal) * 100).toFixed(1)} %; ` +
        `steady state ${steady.toFixed(1)}/s (${((steady / ideal) * 100).toFixed(1)} %); claim → recorded p50 ` +
        `${durations[Math.floor(durations.length / 2)]} ms, max ` +
        `${durations.at(-1)} ms (includes waiting for a run slot)`,
    );
  }
}

// 2. Memory with `queued` evaluations waiting behind a judge that does not answer in time, and the
// same ingest with no evaluator bound (what the queue itself costs is the difference).
interface MemoryStats extends Stats {
  memory: { rssMiB: number; heapUsedMiB: number; heapTotalMiB: number; externalMiB: number };
}

async function measureMemory(name: string, bound: boolean): Promise<void> {
  const collector = await startCollector(name, 64, bound);
  const pid = collector.child.pid!;
  const idle = memoryKiB(pid);
  const bodies = Math.ceil(queued / EVALUATED_PER_BODY);
  const t0 = performance.now();
  const sent = await send(collector, bodies, 20);
  await waitUntil(async () => {
    const s = await stats(collector);
    return bound
      ? allTriggered(s, sent.acknowledged)
      : s.pendingTraces === 0 && s.interactions >= sent.acknowledged * TRACES_PER_BODY;
  }, 'every interaction to be recorded (and its evaluation queued)');
  const ingestSeconds = (performance.now() - t0) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 5000)); // the queue at rest
  const s = (await stats(collector)) as MemoryStats;
  const memory = memoryKiB(pid);
  const interactions = fmt(sent.acknowledged * TRACES_PER_BODY);
  line(
    bound
      ? `memory, llm-judge bound: ${interactions} interactions recorded in ${ingestSeconds.toFixed(1)} s; ` +
          `${fmt(s.evaluation.triggered - s.evaluation.recorded)} evaluations queued ` +
          `(${fmt(s.evaluation.running)} running on a judge that answers after ${slowMs / 1000} s, ` +
          `${fmt(s.evaluation.waiting)} held in memory, overflow ${s.evaluation.overflow})`
      : `memory, no evaluator bound (same ingest): ${interactions} interactions recorded in ` +
          `${ingestSeconds.toFixed(1)} s`,
  );
  line(
    `  collector RSS: ${mib(idle.rss)} idle; at rest after ingest ${mib(memory.rss)} (V8 heap used ` +
      `${s.memory.heapUsedMiB} MiB of ${s.memory.heapTotalMiB} MiB, ` +
      `external ${s.memory.externalMiB} MiB); peak ${mib(memory.peak)}`,
  );
  await stop(collector, 'SIGKILL');

  // The same ledger in a new collector: the queue without what ingest left on the heap.
  const restarted = await spawnCollector(join(dir, `${name}.yaml`));
  await waitUntil(
    async () => !bound || (await stats(restarted)).evaluation.running > 0,
    'the queued evaluations to resume',
  );
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const after = (await stats(restarted)) as MemoryStats;
  const db = new DatabaseSync(join(dir, `${name}.db`), { readOnly: true });
  const { queuedRows } = db.prepare('SELECT count(*) AS queuedRows FROM evaluation_queue').get() as {
    queuedRows: number;
  };
  db.close();
  line(
    `  restarted on that ledger: ${fmt(queuedRows)} evaluations queued (${fmt(after.evaluation.running)} running, ` +
      `${fmt(after.evaluation.waiting)} held in memory, overflow ${after.evaluation.overflow}): ` +
      `RSS ${mib(memoryKiB(restarted.child.pid!).rss)} (V8 heap used ${after.memory.heapUsedMiB} MiB of ` +
      `${after.memory.heapTotalMiB} MiB)`,
  );
  await stop(restarted, 'SIGKILL');
}

if (!values['skip-memory']) {
  replyDelayMs = slowMs;
  await measureMemory('memory-queued', true);
  if (!values['skip-baseline']) await measureMemory('memory-baseline', false);
}

await judge.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0); // pending slow replies of the scripted judge would keep the process alive
