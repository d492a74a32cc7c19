/**
 * Exactly once across a crash: a collector killed with SIGKILL while evaluations are queued and
 * running loses none of them and records none twice. After the restart every interaction has
 * exactly one outcome per bound evaluator.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { testConfigYaml } from '../helpers/collector.ts';
import { spawnCollector, type CollectorProcess } from '../helpers/collector-process.ts';
import { pollUntil } from '../helpers/poll.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-eval-kill9-'));
const processes: CollectorProcess[] = [];
afterAll(() => {
  for (const p of processes) p.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const MODULE = fileURLToPath(new URL('./fixtures/slow-evaluators.ts', import.meta.url));
const EVALUATORS = ['slow-length', 'slow-quality'];
const INTERACTIONS = 300;

function body(interactionIds: string[]): string {
  const now = BigInt(Date.now()) * 1_000_000n;
  const spans = interactionIds.map((interactionId) => {
    const [traceId, spanId] = interactionId.split('-');
    return {
      traceId,
      spanId,
      name: 'invoke_agent durable-agent',
      kind: 1,
      startTimeUnixNano: String(now),
      endTimeUnixNano: String(now + 2000n),
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
        { key: 'gen_ai.agent.id', value: { stringValue: 'durable-agent' } },
      ],
    };
  });
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }],
  });
}

interface EvaluationStats {
  recorded: number;
  waiting: number;
  running: number;
  triggered: number;
}
async function evaluationStats(apiUrl: string): Promise<EvaluationStats> {
  return ((await (await fetch(`${apiUrl}/api/v1/stats`)).json()) as { evaluation: EvaluationStats }).evaluation;
}

it('loses no queued evaluation and records none twice when killed with SIGKILL mid-queue', async () => {
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(
    configFile,
    testConfigYaml(dir).replace(
      '  evaluation:\n',
      `  evaluation:
    modules: [ ${MODULE} ]
    concurrency: 2
    evaluators:
      slow-quality: { agents: { durable-agent: {} } }
      slow-length: { agents: { durable-agent: {} } }
`,
    ),
  );
  const first = await spawnCollector(configFile);
  processes.push(first);
  const ids = Array.from(
    { length: INTERACTIONS },
    () => `${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}`,
  );
  for (let i = 0; i < ids.length; i += 50) {
    const response = await fetch(first.otlpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(ids.slice(i, i + 50)),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
  // Kill once every evaluation is queued and some are recorded: the rest are mid-queue or running.
  const before = await pollUntil(
    async () => {
      const stats = await evaluationStats(first.apiUrl);
      return stats.triggered === INTERACTIONS * EVALUATORS.length && stats.recorded >= 40 ? stats : undefined;
    },
    { timeoutMs: 30_000, what: 'evaluations queued and partly recorded' },
  );
  first.child.kill('SIGKILL');
  await first.exited;
  expect(before.recorded).toBeLessThan(INTERACTIONS * EVALUATORS.length);

  const second = await spawnCollector(configFile);
  processes.push(second);
  await pollUntil(
    async () => {
      const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
      try {
        const queued = (db.prepare('SELECT count(*) AS n FROM evaluation_queue').get() as { n: number }).n;
        return queued === 0 ? true : undefined;
      } finally {
        db.close();
      }
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'the evaluation queue to drain after the restart' },
  );
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);

  const db = new DatabaseSync(join(dir, 'ledger.db'), { readOnly: true });
  const rows = db
    .prepare('SELECT interaction_id AS interactionId, evaluator_id AS evaluatorId, outcome, record FROM evaluations')
    .all() as {
    interactionId: string;
    evaluatorId: string;
    outcome: string;
    record: string;
  }[];
  db.close();
  const keys = rows.map((row) => `${row.interactionId}/${row.evaluatorId}`);
  expect(new Set(keys).size).toBe(keys.length); // none twice
  // None lost.
  expect(new Set(keys)).toEqual(new Set(ids.flatMap((id) => EVALUATORS.map((evaluator) => `${id}/${evaluator}`))));
  expect(rows.every((row) => row.outcome === 'verdict')).toBe(true);
  const retried = rows.filter((row) => (JSON.parse(row.record) as { attempts: number }).attempts > 1);
  // Only the evaluations claimed or running when killed ran twice: a handful, not the queue.
  expect(retried.length).toBeLessThanOrEqual(10);
}, 180_000);
