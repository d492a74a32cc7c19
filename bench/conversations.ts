/**
 * `npm run bench:conversations` — what conversations cost, on this machine. Three phases:
 *
 * 1. Memory: a collector (child process, SQLite ledger) is sent `--conversations` interactions
 *    (default 100 000) by a sender process, as fast as it acknowledges them; once all are recorded
 *    and it has settled, its RSS is sampled. Run twice on fresh ledgers: every interaction the
 *    only turn of a conversation of its own (so that many open conversations), and no conversation
 *    ids at all. The difference is what the open conversations cost (goal: at most +50 MB).
 * 2. Verdict lag after an explicit end: a collector with a conversation-bound `reply-length`; the
 *    sender posts `--rate` interactions/s (default 1000) for `--seconds` (default 20), every one a
 *    turn of a three-turn conversation whose last turn ends it. Lag = the verdict's `completedAt`
 *    minus the end of the ending turn, read back from the ledger (goal: p99 at most settle + 100 ms).
 * 3. Idle detection: a ledger store in this process holding 10 000, then 100 000 open
 *    conversations; the tracker's due query (`findDueConversations`) timed with none due and with
 *    100 due, median and p99 of 200 runs (goal: the same at 10k and 100k). `--postgres` times the
 *    PostgreSQL store too (embedded server, fsync off).
 *
 * Options: --phases memory,lag,idle (default all), --conversations N, --rate N, --seconds N,
 * --settle 200ms, --postgres, --quick (small sizes: checks the benchmark runs, no figures).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import { spawnCollector, type CollectorProcess } from '../test/helpers/collector-process.ts';
import { fmt, killOnExit, line, memory, startSender, stats } from './ingest-support.ts';
import { timeIdleDetection } from './conversations-idle.ts';

const { values } = parseArgs({
  options: {
    phases: { type: 'string', default: 'memory,lag,idle' },
    conversations: { type: 'string', default: '100000' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '20' },
    settle: { type: 'string', default: '200ms' },
    postgres: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
  },
});
const quick = values.quick === true;
const phases = new Set(values.phases.split(','));
const conversations = quick ? 5_000 : Number(values.conversations);
const rate = Number(values.rate);
const seconds = quick ? 3 : Number(values.seconds);
const collectors: CollectorProcess[] = [];
killOnExit(collectors);

line(
  `bench:conversations — Node ${process.version}, load average ${loadavg()[0].toFixed(2)}${quick ? ' (quick)' : ''}`,
);

function config(dir: string, evaluators = ''): string {
  const file = join(dir, 'otel-config.yaml');
  writeFileSync(
    file,
    `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: { settle: ${values.settle}, conversation_idle: 1h }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
${evaluators}extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
  );
  return file;
}

async function waitFor(collector: CollectorProcess, interactions: number): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    const s = await stats(collector);
    if (s.pendingTraces === 0 && s.interactions >= interactions) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the collector did not record ${interactions} interactions within 10 minutes`);
}

/** The collector's RSS once settled: the lowest of 10 samples over 3 s (between collections). */
async function settledRss(collector: CollectorProcess): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const samples: number[] = [];
  for (let i = 0; i < 10; i++) {
    samples.push(memory(collector.child.pid!).rssMiB);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return Math.min(...samples);
}

async function memoryRun(withConversations: boolean): Promise<{ rss: number; baseline: number; perSecond: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-conversations-'));
  try {
    const collector = await spawnCollector(config(dir));
    collectors.push(collector);
    const baseline = await settledRss(collector);
    const sender = startSender<{ perSecond: number }>('./conversations-sender.ts', {
      url: collector.otlpUrl,
      mode: 'fill',
      count: conversations,
      conversations: withConversations,
      prefix: `memory-${withConversations}`,
    });
    const sent = await sender.result;
    await waitFor(collector, conversations);
    const rss = await settledRss(collector);
    if (withConversations) {
      const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
      const open = (db.prepare('SELECT count(*) AS n FROM conversations WHERE open = 1').get() as { n: number }).n;
      db.close();
      line(`  ${fmt(open)} open conversations in the ledger`);
    }
    collector.child.kill('SIGTERM');
    await collector.exited;
    return { rss, baseline, perSecond: sent.perSecond };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (phases.has('memory')) {
  line(`\n1. Memory: ${fmt(conversations)} interactions recorded, each its own open conversation, or none`);
  const without = await memoryRun(false);
  const withOpen = await memoryRun(true);
  line(
    `  without conversation ids: RSS ${without.rss.toFixed(1)} MiB (idle collector ${without.baseline.toFixed(1)} MiB)`,
  );
  line(
    `  with ${fmt(conversations)} open:      RSS ${withOpen.rss.toFixed(1)} MiB ` +
      `(idle collector ${withOpen.baseline.toFixed(1)} MiB)`,
  );
  line(`  open conversations add ${(withOpen.rss - without.rss).toFixed(1)} MiB (goal: at most 50 MB)`);
}

if (phases.has('lag')) {
  line(
    `\n2. Verdict lag after an explicit end: ${fmt(rate)} interactions/s for ${seconds} s, three turns a conversation`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-lag-'));
  try {
    const collector = await spawnCollector(
      config(
        dir,
        `    evaluators:
      reply-length:
        min-length: 1
        agents:
          bench-agent: { trigger: conversation }
`,
      ),
    );
    collectors.push(collector);
    const sent = await startSender<{ acknowledged: number; rejected: number; perSecond: number }>(
      './conversations-sender.ts',
      { url: collector.otlpUrl, mode: 'paced', rate, seconds, prefix: 'lag' },
    ).result;
    await waitFor(collector, sent.acknowledged);
    const expected = Math.floor(sent.acknowledged / 3);
    const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
    const count = () =>
      (
        db.prepare("SELECT count(*) AS n FROM evaluations WHERE interaction_id LIKE 'conversation:%'").get() as {
          n: number;
        }
      ).n;
    for (let i = 0; i < 600 && count() < expected; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const rows = db
      .prepare(
        `SELECT e.completed_at_ms - i.end_time_ms AS lag,
           CAST(round(unixepoch(json_extract(e.record, '$.triggeredAt'), 'subsec') * 1000) AS INTEGER) - i.end_time_ms
             AS over,
           e.completed_at_ms - CAST(round(unixepoch(json_extract(e.record, '$.triggeredAt'), 'subsec') * 1000)
             AS INTEGER) AS evaluated
         FROM evaluations e
         JOIN interactions i ON i.interaction_id = json_extract(e.record, '$.interactionId')
         WHERE e.interaction_id LIKE 'conversation:%'`,
      )
      .all() as { lag: number; over: number; evaluated: number }[];
    db.close();
    const sorted = (key: 'lag' | 'over' | 'evaluated') => rows.map((row) => Number(row[key])).sort((a, b) => a - b);
    const percentiles = (values: number[]) => {
      const at = (p: number) => values[Math.min(values.length - 1, Math.floor(values.length * p))] ?? Number.NaN;
      return `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, max ${values.at(-1)} ms`;
    };
    const lags = sorted('lag');
    line(
      `  sent ${fmt(sent.acknowledged)} interactions (${fmt(sent.perSecond)}/s, ${fmt(sent.rejected)} refused); ` +
        `${fmt(lags.length)} of ${fmt(expected)} conversations evaluated`,
    );
    line(`  lag (ending turn's end → verdict): ${percentiles(lags)} (goal: p99 ≤ settle ${values.settle} + 100 ms)`);
    line(`    of which ending turn's end → conversation over and triggered: ${percentiles(sorted('over'))}`);
    line(`    and triggered → verdict recorded: ${percentiles(sorted('evaluated'))}`);
    collector.child.kill('SIGTERM');
    await collector.exited;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (phases.has('idle')) {
  line('\n3. Idle detection: the due query over 10k and 100k open conversations (median / p99 of 200 runs)');
  for (const store of values.postgres ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
    for (const row of await timeIdleDetection(store, quick ? [1_000, 10_000] : [10_000, 100_000])) line(`  ${row}`);
  }
}
