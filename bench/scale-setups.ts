/**
 * The setups `bench/scale.ts` compares and what it does with them: start a setup's collectors on a
 * fresh ledger, start senders, and wait until the collectors have drained what was sent (or have
 * stalled, or timed out).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnCollector, type CollectorProcess } from '../test/helpers/collector-process.ts';
import type { PostgresServer } from '../test/helpers/postgres-server.ts';
import { EXAMPLES, line, startSender, stats, type SenderProcess } from './ingest-support.ts';
import { adminQuery, postgresReader, sqliteReader, type LedgerReader } from './scale-ledger.ts';

export interface Setup {
  name: string;
  ledger: 'sqlite' | 'postgres';
  replicas: number;
}
export const SETUPS: readonly Setup[] = [
  { name: 'sqlite-1', ledger: 'sqlite', replicas: 1 },
  { name: 'pg-1', ledger: 'postgres', replicas: 1 },
  { name: 'pg-2', ledger: 'postgres', replicas: 2 },
];
export const REPLICA_IDS = ['replica-a', 'replica-b'];
/** Each sender's trace ids start with its own counter range, so no two senders repeat a trace. */
export const counterBase = (replica: number, warmUp = false) => (warmUp ? 1 << 30 : 0) + replica * (1 << 28);

export const label = (setup: Setup) =>
  `${setup.ledger === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${setup.replicas} replica${setup.replicas > 1 ? 's' : ''}`;

/** What a run shares: its scratch folder, the PostgreSQL server, and the processes to kill if it fails. */
export interface Bench {
  dir: string;
  server: PostgresServer | undefined;
  collectors: CollectorProcess[];
  senderPids: number[];
}

export interface Running {
  setup: Setup;
  collectors: CollectorProcess[];
  ledger: LedgerReader;
  stop(): Promise<void>;
}

/** Starts `setup` for one phase: a fresh ledger, its collectors (tracked in `bench.collectors`). */
export async function startSetup(bench: Bench, phase: string, setup: Setup, evaluators: string): Promise<Running> {
  const name = `${phase}_${setup.name.replace('-', '_')}`;
  let ledgerYaml: string;
  let ledger: LedgerReader;
  if (setup.ledger === 'sqlite') {
    const path = join(bench.dir, `${name}.db`);
    ledgerYaml = `sqlite: { path: ${path} }`;
    ledger = sqliteReader(path);
  } else {
    await adminQuery(bench.server!.adminUrl, `CREATE DATABASE evalon_bench_${name}`);
    const url = new URL(bench.server!.adminUrl);
    url.pathname = `/evalon_bench_${name}`;
    ledgerYaml = `postgres: { url: "${url}" }`;
    ledger = postgresReader(url.toString());
  }
  const file = join(bench.dir, `${name}.yaml`);
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
    bench.collectors.push(collector);
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

/** A sender process, tracked in `bench.senderPids` so that a failed run kills it. */
export function sender<T>(
  bench: Bench,
  script: './ingest-sender.ts' | './evaluate-sender.ts',
  options: Record<string, unknown>,
): SenderProcess<T> {
  const started = startSender<T>(script, options);
  bench.senderPids.push(started.pid);
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
export async function drain(running: Running, interactions: number, timeoutMs = 60_000): Promise<boolean> {
  return waitUntil(async () => {
    for (const collector of running.collectors) if ((await stats(collector)).pendingTraces > 0) return false;
    return (await running.ledger.count('interactions')) >= interactions;
  }, timeoutMs);
}

/** Evaluations the collectors triggered (queued), all replicas together. */
export async function triggered(running: Running): Promise<number> {
  return (await Promise.all(running.collectors.map(stats))).reduce((sum, s) => sum + s.evaluation.triggered, 0);
}

export interface Drained {
  done: boolean;
  stalled: boolean;
}

/** A collector holding claimed or waiting evaluations that runs and records none for this long has stalled. */
export const STALL_MS = 10_000;

/**
 * Every recorded interaction taken in, every evaluation it triggered recorded and the queue
 * empty, seen twice half a second apart; or a stalled collector (see
 * docs/benchmarks.md, "Scale-out"), or a timeout.
 */
export async function evaluationsDrained(running: Running, timeoutMs: number): Promise<Drained> {
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
