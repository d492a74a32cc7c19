/**
 * Durability: the collector acknowledges an OTLP request only once its spans are stored, so a
 * collector killed with SIGKILL mid-ingest loses none of the spans it acknowledged, and on restart
 * completes the interactions that were still pending — and those whose traces were waiting for room
 * past `max_pending_traces`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { testConfigYaml } from '../helpers/collector.ts';
import { spawnCollector, type CollectorProcess } from '../helpers/collector-process.ts';
import { pollUntil } from '../helpers/poll.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-kill9-'));
const processes: CollectorProcess[] = [];
afterAll(() => {
  for (const p of processes) p.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** An OTLP/JSON body of one invoke_agent span with a model-call child per interaction id. */
function body(interactionIds: string[]): string {
  const now = BigInt(Date.now()) * 1_000_000n;
  const spans = interactionIds.flatMap((interactionId) => {
    const [traceId, root] = interactionId.split('-');
    const times = { startTimeUnixNano: String(now), endTimeUnixNano: String(now + 2000n), flags: 0x101 };
    return [
      {
        traceId,
        spanId: randomBytes(8).toString('hex'),
        parentSpanId: root,
        name: 'chat claude',
        kind: 3,
        ...times,
        attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
      },
      {
        traceId,
        spanId: root,
        name: 'invoke_agent durable-agent',
        kind: 1,
        ...times,
        attributes: [
          { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
          { key: 'gen_ai.agent.id', value: { stringValue: 'durable-agent' } },
        ],
      },
    ];
  });
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'kill9' } }] },
        scopeSpans: [{ scope: { name: 't' }, spans }],
      },
    ],
  });
}

async function missingInteractions(apiUrl: string, ids: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const statuses = await Promise.all(
      ids.slice(i, i + 50).map(async (id) => {
        const response = await fetch(`${apiUrl}/api/v1/interactions/${id}`);
        await response.arrayBuffer();
        return [id, response.status] as const;
      }),
    );
    for (const [id, status] of statuses) if (status !== 200) missing.push(id);
  }
  return missing;
}

/** Sends until 3,000 interactions are acknowledged, kills the collector, restarts it: its start log. */
async function killAndRestart(configFile: string): Promise<string> {
  const first = await spawnCollector(configFile);
  processes.push(first);

  const acknowledged: string[] = [];
  let stop = false;
  const senders = Array.from({ length: 4 }, async () => {
    while (!stop) {
      const ids = Array.from(
        { length: 25 },
        () => `${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}`,
      );
      try {
        const response = await fetch(first.otlpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body(ids),
        });
        await response.arrayBuffer();
        if (response.status === 200) acknowledged.push(...ids);
      } catch {
        // The collector died during this request: it was not acknowledged.
      }
    }
  });
  await pollUntil(() => (acknowledged.length >= 3_000 ? true : undefined), {
    timeoutMs: 60_000,
    what: '3000 acknowledged interactions',
  });
  first.child.kill('SIGKILL');
  await first.exited;
  stop = true;
  await Promise.all(senders);
  const beforeKill = await missingInteractions(first.apiUrl, acknowledged.slice(0, 1)).catch(() => 'unreachable');
  expect(beforeKill).toBe('unreachable');

  const second = await spawnCollector(configFile);
  processes.push(second);
  const startLog = second.log();
  const missing = await pollUntil(
    async () => {
      const absent = await missingInteractions(second.apiUrl, acknowledged);
      return absent.length === 0 ? absent : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500, what: 'every acknowledged interaction in the ledger' },
  );
  expect(missing).toEqual([]);
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
  return startLog;
}

it('loses no acknowledged span when killed with SIGKILL, and completes pending interactions on restart', async () => {
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(configFile, testConfigYaml(dir).replace('settle: 150ms', 'settle: 500ms'));
  expect(await killAndRestart(configFile)).toMatch(/recovered \d+ stored spans/);
}, 180_000);

it('completes on restart the interactions whose traces were waiting past max_pending_traces', async () => {
  const ledgerDir = join(dir, 'waiting');
  const configFile = join(dir, 'otel-config-waiting.yaml');
  // Three hundred traces pending, each decided half a second after its spans: thousands of them wait.
  const yaml = testConfigYaml(ledgerDir).replace(
    'settle: 150ms',
    'settle: 500ms\n    max_pending_traces: 300\n    max_waiting_traces: 100000',
  );
  writeFileSync(configFile, yaml);
  expect(await killAndRestart(configFile)).toMatch(/recovered \d+ stored spans of 300 pending traces and \d+ waiting/);
}, 180_000);
