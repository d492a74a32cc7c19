/**
 * `npm run bench:review` — the review queue at 10,000 open reviews. A fresh SQLite ledger is seeded
 * through the store (10,000 interactions, each with an open review whose evaluation is parked, as
 * `human-review` leaves them), then a collector serves it, API only. Figures:
 *
 * 1. `GET /api/v1/reviews?status=open` (one page of 50, and pages further on through the cursor):
 *    p50 / p95 / max over `--requests` requests. Goal: a page in ≤ 20 ms.
 * 2. The review page in headless Chromium (Debian's `chromium`, playwright-core): from navigation
 *    to `/ui/` to the first row of the queue table on screen, a fresh page each time, p50 / max
 *    over `--loads` loads. Goal: ≤ 300 ms.
 *
 * Options: --reviews N (default 10000), --requests N (default 200), --loads N (default 10).
 * Run it on a quiet machine: the figures in docs/benchmarks.md are measured there.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../collector/config/index.ts';
import { silentLogger } from '../collector/logger.ts';
import { createSqliteStore } from '../collector/ledger/sqlite/sqlite-store.ts';
import { startCollector } from '../collector/service.ts';
import { testInteractionRecord } from '../src/testing/index.ts';
import { launchChromium } from '../test/helpers/browser.ts';

const { values } = parseArgs({
  options: {
    reviews: { type: 'string', default: '10000' },
    requests: { type: 'string', default: '200' },
    loads: { type: 'string', default: '10' },
  },
});
const REVIEWS = Number(values.reviews);
const REQUESTS = Number(values.requests);
const LOADS = Number(values.loads);
const BATCH = 500;

const dir = mkdtempSync(join(tmpdir(), 'evalon-bench-review-'));
const ledger = join(dir, 'ledger.db');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function seed(): Promise<void> {
  const store = createSqliteStore({ path: ledger });
  const started = performance.now();
  const t0 = Date.now() - REVIEWS * 1000;
  for (let from = 0; from < REVIEWS; from += BATCH) {
    const records = Array.from({ length: Math.min(BATCH, REVIEWS - from) }, (_, i) => {
      const traceId = randomBytes(16).toString('hex');
      const spanId = randomBytes(8).toString('hex');
      return testInteractionRecord({
        interactionId: `${traceId}-${spanId}`,
        traceId,
        spanId,
        agentId: `agent-${(from + i) % 7}`,
        endTime: new Date(t0 + (from + i) * 1000).toISOString(),
        finalResponseText: `reply ${from + i}`,
      });
    });
    await store.putInteractions(records);
    const queued = await store.enqueueEvaluations(
      records.map((record) => ({
        evaluationId: randomUUID(),
        interactionId: record.interactionId,
        evaluatorId: 'human-review/audit',
        evaluatorVersion: '1',
        agentId: record.agentId,
        roles: [],
        triggeredAt: record.endTime,
        source: 'interaction' as const,
        attempts: 0,
      })),
      { intake: records.map((record) => record.interactionId) },
    );
    for (const evaluation of queued) {
      await store.openReview({
        reviewId: evaluation.evaluationId,
        entryId: evaluation.evaluatorId,
        agentId: evaluation.agentId,
        interactionId: evaluation.interactionId,
        subject: { kind: 'interaction' },
        reason: { kind: 'sampled' },
        createdAt: evaluation.triggeredAt,
      });
    }
    await store.parkEvaluations(
      queued.map((evaluation) => ({
        seq: evaluation.seq!,
        progress: {
          step: 'record-review',
          state: { timeout: '7d' },
          completedSteps: 1,
          firstStartedAt: evaluation.triggeredAt,
          awaiting: {
            signal: 'review',
            since: evaluation.triggeredAt,
            deadline: new Date(Date.now() + 7 * 86_400_000).toISOString(),
          },
        },
      })),
    );
  }
  await store.close();
  console.log(`seeded ${REVIEWS} open reviews in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function main(): Promise<void> {
  await seed();
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(
    configFile,
    `processors:
  interactions:
  evaluation:
    ledger: { sqlite: { path: ${ledger} } }
    evaluators:
      human-review/audit:
        agents: { agent-0: { sampling-ratio: 0.02 } }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [], processors: [interactions, evaluation] }
`,
  );
  const collector = await startCollector(loadConfig([configFile]).config, { logger: silentLogger });
  const api = `http://${collector.apiAddress!.host}:${collector.apiAddress!.port}`;
  try {
    // 1. The list endpoint: the first page, and pages further on.
    const first = (await (await fetch(`${api}/api/v1/reviews?status=open`)).json()) as { nextCursor?: string };
    const cursors = [undefined, first.nextCursor];
    const times: number[] = [];
    for (let n = 0; n < REQUESTS; n++) {
      const cursor = cursors[n % cursors.length];
      const url = `${api}/api/v1/reviews?status=open${cursor ? `&cursor=${cursor}` : ''}`;
      const t = performance.now();
      const response = await fetch(url);
      await response.arrayBuffer();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(
      `GET /api/v1/reviews (50 of ${REVIEWS} open), ${REQUESTS} requests: p50 ${ms(percentile(times, 50))}, ` +
        `p95 ${ms(percentile(times, 95))}, max ${ms(times.at(-1)!)} (goal ≤ 20 ms)`,
    );

    // 2. The review page: navigation to the first queue row on screen.
    const browser = await launchChromium();
    if (!browser) {
      console.log('no Chromium: the page figure is not measured (apt-get install chromium)');
      return;
    }
    try {
      const loads: number[] = [];
      for (let n = 0; n < LOADS; n++) {
        const page = await browser.newPage();
        const t = performance.now();
        await page.goto(`${api}/ui/`);
        await page.locator('tbody tr').first().waitFor();
        loads.push(performance.now() - t);
        await page.close();
      }
      loads.sort((a, b) => a - b);
      console.log(
        `review page, first screen (queue of ${REVIEWS}), ${LOADS} loads: p50 ${ms(percentile(loads, 50))}, ` +
          `max ${ms(loads.at(-1)!)} (goal ≤ 300 ms)`,
      );
    } finally {
      await browser.close();
    }
  } finally {
    await collector.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
