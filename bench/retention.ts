/**
 * `npm run bench:retention` — sustained ingest into an SQLite ledger bounded by
 * `retention.max_size`, against the same run without retention.
 *
 * Two runs of `--minutes` each (default 10), one after the other, each a real collector (`evalon
 * collector`, its own process, a fresh SQLite ledger) fed by a sender process posting the ingest
 * benchmark's realistic body (1000 spans, 100 agent traces of 10 spans) with fresh trace ids and
 * conversation ids (each a session of one turn, over after `conversation_idle`, 10 s here: an open
 * conversation is never pruned), every request's spans ending when it is sent, as fast as it is
 * acknowledged or at `--rate` spans/s:
 *
 * 1. without retention: acknowledged spans/s, and the ledger's bytes per recorded interaction
 *    (pages in use / interactions: the sizing figure of docs/retention.md);
 * 2. with `retention: { max_size: <--max-size> }` (default 1GiB): acknowledged spans/s, and the
 *    ledger file's size sampled every 500 ms (the file alone, and with its WAL).
 *
 * Goals: the file stays within max_size + 10 %; the acknowledged rate with retention is within
 * 10 % of the rate without. Options: --minutes N, --max-size SIZE (64MiB, 1GiB…), --concurrency N,
 * --rate SPANS_PER_SECOND. As fast as acknowledged, the collector acknowledges more than it records
 * and holds the difference as a backlog of acknowledged spans in the ledger (bounded by
 * `max_pending_traces`), which no retention may remove: at a rate it records as it comes, the
 * ledger holds what retention bounds.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { size } from '../collector/config/values.ts';
import { spawnCollector, type CollectorProcess } from '../test/helpers/collector-process.ts';
import {
  SPANS_PER_BODY,
  TRACES_PER_BODY,
  fmt,
  killOnExit,
  line,
  runIngestSender,
  stats,
  waitForDrain,
  writeTemplateBody,
} from './ingest-support.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    'max-size': { type: 'string', default: '1GiB' },
    concurrency: { type: 'string', default: '8' },
    rate: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const maxSize = z.object({ value: size() }).parse({ value: values['max-size'] }).value;
const concurrency = Number(values.concurrency);
/** Spans a second offered (whole requests of SPANS_PER_BODY); none: as fast as acknowledged. */
const rate = values.rate !== undefined ? Number(values.rate) : undefined;
const MiB = 1024 * 1024;
/** Sessions end a short while after their last turn: their conversations close, and may be pruned. */
const CONVERSATION_IDLE = '10s';

const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-retention-'));
// Every request's interactions end when it is sent: retention prunes by time order, and copies of
// one body that all ended in the same millisecond would have none.
const { templateFile, offsetsFile, conversationOffsetsFile, timeOffsetsFile } = await writeTemplateBody(dir, {
  uniqueConversations: true,
  currentTimes: true,
});
const collectors: CollectorProcess[] = [];
killOnExit(collectors);

line(`Evalon retention benchmark — ${cpus().length} vCPU (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`);
line(
  `${minutes} min of sustained ingest a run, ${concurrency} concurrent requests, ` +
    `${rate ? `${fmt(rate)} spans/s offered` : 'as fast as acknowledged'}, max_size ${fmt(maxSize / MiB)} MiB`,
);

interface RunFigures {
  spansPerSecond: number;
  interactions: number;
  usedBytes: number;
  peakFile: number;
  peakFileWithWal: number;
}

async function run(name: string, retention: string): Promise<RunFigures> {
  const path = join(dir, `${name}.db`);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `receivers:
  otlp: { protocols: { http: { endpoint: 127.0.0.1:0 } } }
processors:
  interactions: { settle: 2s, decision_wait: 30s, conversation_idle: ${CONVERSATION_IDLE} }
  evaluation:
    ledger:
      sqlite: { path: ${path} }
${retention}extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
  );
  const collector = await spawnCollector(file);
  collectors.push(collector);
  const bytes = (at: string) => {
    try {
      return statSync(at).size;
    } catch {
      return 0;
    }
  };
  let peakFile = 0;
  let peakFileWithWal = 0;
  const sampler = setInterval(() => {
    const main = bytes(path);
    peakFile = Math.max(peakFile, main);
    peakFileWithWal = Math.max(peakFileWithWal, main + bytes(`${path}-wal`));
  }, 500);
  const result = await runIngestSender({
    url: collector.otlpUrl,
    templateFile,
    offsetsFile,
    conversationOffsetsFile,
    timeOffsetsFile,
    spansPerBody: SPANS_PER_BODY,
    concurrency,
    seconds: minutes * 60,
    ...(rate ? { requestsPerSecond: rate / SPANS_PER_BODY } : {}),
  });
  await waitForDrain(collector);
  clearInterval(sampler);
  const { interactions } = await stats(collector);
  collector.child.kill('SIGTERM');
  await collector.exited;
  const db = new DatabaseSync(path, { readOnly: true });
  const pragma = (p: string) => Number((db.prepare(`PRAGMA ${p}`).get() as Record<string, number>)[p]);
  const usedBytes = (pragma('page_count') - pragma('freelist_count')) * pragma('page_size');
  const stored = Number((db.prepare('SELECT count(*) AS n FROM interactions').get() as { n: number }).n);
  db.close();
  line(
    `${name}: ${fmt(result.spansPerSecond)} spans/s acknowledged (${fmt(result.acknowledgedSpans)} spans, ` +
      `${fmt(interactions)} interactions recorded, ${fmt(stored)} in the ledger at the end); ` +
      `file peak ${fmt(peakFile / MiB)} MiB (${fmt(peakFileWithWal / MiB)} MiB with its WAL); ` +
      `${fmt(usedBytes / MiB)} MiB in use at the end`,
  );
  return { spansPerSecond: result.spansPerSecond, interactions: stored, usedBytes, peakFile, peakFileWithWal };
}

const without = await run('without-retention', '');
const perInteraction = without.usedBytes / Math.max(1, without.interactions);
line(
  `  bytes per recorded interaction (${SPANS_PER_BODY / TRACES_PER_BODY} spans, pages in use / interactions): ` +
    `${fmt(perInteraction)}`,
);
rmSync(join(dir, 'without-retention.db'), { force: true });
const bounded = await run('with-retention', `      retention: { max_size: ${maxSize} }\n`);

const fileOk = bounded.peakFile <= maxSize * 1.1;
const ratio = bounded.spansPerSecond / without.spansPerSecond;
line();
line(
  `goal: the file within max_size + 10 % — peak ${fmt(bounded.peakFile / MiB)} MiB of ` +
    `${fmt((maxSize * 1.1) / MiB)} MiB: ${fileOk ? 'met' : 'NOT MET'}`,
);
line(
  `goal: acknowledged throughput within 10 % of the run without retention — ${(ratio * 100).toFixed(1)} %: ` +
    `${ratio >= 0.9 ? 'met' : 'NOT MET'}`,
);
if (bounded.peakFile < maxSize * 0.9)
  line(
    `  (the file never reached max_size: run longer, or with a smaller --max-size, for the first goal to mean much)`,
  );
rmSync(dir, { recursive: true, force: true });
