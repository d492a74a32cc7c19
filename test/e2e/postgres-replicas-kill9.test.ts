/**
 * Two replicas on one PostgreSQL ledger under sustained ingest, one killed with SIGKILL mid-run
 * and restarted with the same replica id (docs/scale-out.md, "When a replica dies"). Traces are
 * routed to a replica by trace id, as the OpenTelemetry Collector's `loadbalancing` exporter does.
 * Afterwards: every acknowledged interaction is recorded with all of its spans, and every
 * interaction has exactly one outcome per bound evaluator — the killed replica's started
 * evaluations were resumed after their leases expired, and its acknowledged pending spans were
 * replayed by its restart.
 *
 * Bounded: about 2,000 interactions, loopback only; the senders stop by themselves.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { inflateRecord } from '../../collector/ledger/core/record-codec.ts';
import { testConfigYaml } from '../helpers/collector.ts';
import { spawnCollector, type CollectorProcess } from '../helpers/collector-process.ts';
import { pollUntil } from '../helpers/poll.ts';
import { adminQuery, createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

const MODULE = fileURLToPath(new URL('./fixtures/slow-evaluators.ts', import.meta.url));
const EVALUATORS = ['slow-length', 'slow-quality'];
const TRACES_PER_BODY = 20;
const TARGET_INTERACTIONS = 2_000;
const KILL_AFTER = 500;
const SENDERS = 4;
const TOOLS_PER_TRACE = 2;

const dir = mkdtempSync(join(tmpdir(), 'evalon-replicas-'));
const processes: CollectorProcess[] = [];
let database: TestDatabase | undefined;
afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** One agent interaction per trace: an invoke_agent root and two tool calls under it. */
function body(traceIds: string[]): { json: string; interactionIds: string[] } {
  const now = BigInt(Date.now()) * 1_000_000n;
  const interactionIds: string[] = [];
  const spans = traceIds.flatMap((traceId) => {
    const rootId = randomBytes(8).toString('hex');
    interactionIds.push(`${traceId}-${rootId}`);
    const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const root = {
      traceId,
      spanId: rootId,
      name: 'invoke_agent replica-agent',
      kind: 1,
      startTimeUnixNano: String(now),
      endTimeUnixNano: String(now + 9_000_000n),
      attributes: [attribute('gen_ai.operation.name', 'invoke_agent'), attribute('gen_ai.agent.id', 'replica-agent')],
    };
    const tools = Array.from({ length: TOOLS_PER_TRACE }, (_, i) => ({
      traceId,
      spanId: randomBytes(8).toString('hex'),
      parentSpanId: rootId,
      name: `execute_tool lookup_${i}`,
      kind: 1,
      startTimeUnixNano: String(now + BigInt(i + 1) * 1_000_000n),
      endTimeUnixNano: String(now + BigInt(i + 2) * 1_000_000n),
      attributes: [attribute('gen_ai.operation.name', 'execute_tool'), attribute('gen_ai.tool.name', `lookup_${i}`)],
    }));
    return [root, ...tools];
  });
  return {
    json: JSON.stringify({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'replicas' }, spans }] }],
    }),
    interactionIds,
  };
}

async function count(sql: string): Promise<number> {
  return Number((await adminQuery(database!.url, sql)).rows[0].n);
}

it('loses no acknowledged span and records every evaluation once when a replica is killed and restarted', async () => {
  database = await createTestDatabase();
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(
    configFile,
    testConfigYaml(dir)
      .replace(/sqlite: \{ path: [^}]*\}/, `postgres: { url: "${database.url}" }`)
      .replace(
        '  evaluation:\n',
        `  evaluation:
    modules: [ ${MODULE} ]
    concurrency: 8
    lease_duration: 2s
    evaluators:
      slow-quality: { agents: { replica-agent: {} } }
      slow-length: { agents: { replica-agent: {} } }
`,
      ),
  );
  const start = (replica: 'a' | 'b') =>
    spawnCollector(configFile, {
      env: { EVALON_REPLICA_ID: `replica-${replica}`, EVALON_TEST_EVALUATOR_DELAY_MS: '10' },
    });
  const replicas: Record<'a' | 'b', CollectorProcess> = { a: await start('a'), b: await start('b') };
  processes.push(replicas.a, replicas.b);

  const acknowledged: Record<'a' | 'b', string[]> = { a: [], b: [] };
  const total = () => acknowledged.a.length + acknowledged.b.length;
  let killed = false;
  let restarted = false;
  const failedWhileDown = { a: 0, b: 0 };
  // Senders route by trace id (the first hex digit's parity picks the replica), like the
  // loadbalancing exporter; a body whose request fails is not acknowledged and not counted.
  const sender = async (index: number) => {
    while (total() < TARGET_INTERACTIONS) {
      const replica: 'a' | 'b' = index % 2 === 0 ? 'a' : 'b';
      const traceIds: string[] = [];
      while (traceIds.length < TRACES_PER_BODY) {
        const traceId = randomBytes(16).toString('hex');
        if ((parseInt(traceId[0], 16) % 2 === 0) === (replica === 'a')) traceIds.push(traceId);
      }
      const { json, interactionIds } = body(traceIds);
      try {
        const response = await fetch(replicas[replica].otlpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: json,
        });
        await response.arrayBuffer();
        if (response.status === 200) acknowledged[replica].push(...interactionIds);
        else await new Promise((resolve) => setTimeout(resolve, 50));
      } catch {
        failedWhileDown[replica]++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const killer = async () => {
    await pollUntil(() => (acknowledged.a.length >= KILL_AFTER ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 10,
      what: 'replica a to acknowledge interactions',
    });
    replicas.a.child.kill('SIGKILL');
    await replicas.a.exited;
    killed = true;
    replicas.a = await start('a');
    processes.push(replicas.a);
    restarted = true;
  };
  await Promise.all([killer(), ...Array.from({ length: SENDERS }, (_, i) => sender(i))]);
  expect(killed && restarted).toBe(true);
  // The restart replayed what the killed replica had acknowledged but not yet decided.
  expect(replicas.a.log()).toMatch(/recovered [1-9]\d* stored spans/);

  // Every acknowledged interaction is recorded, with both of its tool calls.
  const all = [...acknowledged.a, ...acknowledged.b];
  await pollUntil(
    async () => {
      const found = await adminQuery(
        database!.url,
        'SELECT count(*) AS n FROM interactions WHERE interaction_id = ANY($1::text[])',
        [all],
      );
      return Number(found.rows[0].n) === all.length ? true : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'every acknowledged interaction to be recorded' },
  );
  // Stored compressed by the collector that recorded them.
  const records = await adminQuery(
    database.url,
    'SELECT record_deflated FROM interactions WHERE interaction_id = ANY($1::text[])',
    [all],
  );
  const toolCounts = records.rows.map(
    (row) => (JSON.parse(inflateRecord(row.record_deflated as Buffer)) as { toolCalls: unknown[] }).toolCalls.length,
  );
  expect(toolCounts.filter((n) => n !== TOOLS_PER_TRACE)).toEqual([]);

  // Every interaction gets exactly one outcome per evaluator: everything recorded is taken in (a
  // busy replica may leave intake to its catch-up from the ledger) and the queue drains, nothing twice.
  const settled = async () =>
    (await count('SELECT count(*) AS n FROM interaction_intake')) === 0 &&
    (await count('SELECT count(*) AS n FROM evaluation_queue')) === 0;
  await pollUntil(async () => ((await settled()) ? true : undefined), {
    timeoutMs: 90_000,
    intervalMs: 250,
    what: 'every interaction taken in and the evaluation queue drained',
  });
  const interactions = await count('SELECT count(*) AS n FROM interactions');
  const outcomes = await adminQuery(database.url, 'SELECT interaction_id, evaluator_id, outcome FROM evaluations');
  expect(outcomes.rows.length).toBe(interactions * EVALUATORS.length);
  const keys = new Set(outcomes.rows.map((row) => `${row.interaction_id}/${row.evaluator_id}`));
  expect(keys.size).toBe(outcomes.rows.length);
  for (const id of all) for (const evaluator of EVALUATORS) expect(keys.has(`${id}/${evaluator}`)).toBe(true);
  expect(outcomes.rows.every((row) => row.outcome === 'verdict')).toBe(true);

  for (const replica of [replicas.a, replicas.b]) replica.child.kill('SIGTERM');
  expect(await replicas.a.exited).toBe(0);
  expect(await replicas.b.exited).toBe(0);
}, 240_000);
