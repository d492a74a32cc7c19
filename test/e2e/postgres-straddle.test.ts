/**
 * Two collector replicas on one PostgreSQL ledger, each sent half of one trace's spans (what a
 * routing change does to a trace in flight): the split is found and reported by both, with a
 * warning naming the trace and the replicas and the `evalon_traces_split_total` counter, and
 * nothing is lost: the interaction is recorded once, by the replica that had its root, and the
 * other replica's spans are kept as late spans of it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../collector/config/index.ts';
import type { Logger } from '../../collector/logger.ts';
import { startCollector, type RunningCollector } from '../../collector/service.ts';
import { scrape, sampleValue } from '../helpers/prometheus-text.ts';
import { pollUntil } from '../helpers/poll.ts';
import { adminQuery, createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

const TRACE = '5c1e4a2b9d8f7e6a5c1e4a2b9d8f7e6a';
const ROOT = '00000000000000a1';

interface Replica {
  collector: RunningCollector;
  warnings: string[];
  dir: string;
}

async function startReplica(url: string, replicaId: string): Promise<Replica> {
  const dir = mkdtempSync(join(tmpdir(), `evalon-straddle-${replicaId}-`));
  const file = join(dir, 'otel-config.yaml');
  writeFileSync(
    file,
    `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions:
    settle: 150ms
    decision_wait: 2s
  evaluation:
    ledger:
      postgres: { url: "${url}", replica_id: ${replicaId} }
exporters:
  prometheus: { endpoint: 127.0.0.1:0 }
service:
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    metrics: { exporters: [prometheus] }
`,
  );
  const warnings: string[] = [];
  const logger: Logger = {
    info() {},
    warn: (line) => warnings.push(line),
    error: (line) => warnings.push(`error: ${line}`),
  };
  const collector = await startCollector(loadConfig([file]).config, { logger });
  return { collector, warnings, dir };
}

/** One OTLP/JSON request with the given spans of TRACE (all children of ROOT unless they are ROOT). */
async function send(
  replica: Replica,
  spans: Array<{ id: string; name: string; attributes: Record<string, string> }>,
): Promise<void> {
  const { host, port } = replica.collector.otlpAddress!;
  const start = 1_750_000_000_000_000_000n;
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
        scopeSpans: [
          {
            scope: { name: 'straddle' },
            spans: spans.map((s, i) => ({
              traceId: TRACE,
              spanId: s.id,
              ...(s.id === ROOT ? {} : { parentSpanId: ROOT }),
              name: s.name,
              kind: 1,
              flags: 0x100,
              startTimeUnixNano: String(start + BigInt(i + 1) * 1_000_000n),
              endTimeUnixNano: String(start + BigInt(i + 2) * 1_000_000n + (s.id === ROOT ? 10_000_000n : 0n)),
              attributes: Object.entries(s.attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
              status: {},
            })),
          },
        ],
      },
    ],
  };
  const response = await fetch(`http://${host}:${port}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}

let database: TestDatabase;
let a: Replica;
let b: Replica;
beforeAll(async () => {
  database = await createTestDatabase();
  a = await startReplica(database.url, 'replica-a');
  b = await startReplica(database.url, 'replica-b');
});
afterAll(async () => {
  for (const replica of [a, b]) {
    await replica?.collector.shutdown();
    if (replica) rmSync(replica.dir, { recursive: true, force: true });
  }
  await database?.drop();
});

const count = async (sql: string) => Number((await adminQuery(database.url, sql)).rows[0].n);
const splitCounter = async (replica: Replica) =>
  sampleValue((await scrape(replica.collector.prometheusAddress!)).samples, 'evalon_traces_split_total') ?? 0;

describe('a trace split across two replicas', () => {
  it('is reported by both replicas and loses no span', async () => {
    // Replica B gets the tool call and a model call first; replica A the agent invocation and
    // another model call. A decides after the settle window while B still holds its spans.
    await send(b, [
      {
        id: '00000000000000b1',
        name: 'execute_tool lookup_order',
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order' },
      },
      {
        id: '00000000000000b2',
        name: 'chat',
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' },
      },
    ]);
    await send(a, [
      {
        id: ROOT,
        name: 'invoke_agent support-agent',
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': 'support-agent',
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: 'Shipped.' }] },
          ]),
        },
      },
      {
        id: '00000000000000a2',
        name: 'chat',
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' },
      },
    ]);

    // A records the interaction from its half, and reports B's pending spans of the trace.
    const interactionId = `${TRACE}-${ROOT}`;
    await pollUntil(async () => ((await a.collector.store.getInteraction(interactionId)) ? true : undefined), {
      what: 'the interaction recorded by A',
    });
    await pollUntil(async () => (a.warnings.length > 0 ? true : undefined), { what: 'the warning of replica A' });
    expect(a.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `trace ${TRACE} was split across replicas: this one \\("replica-a"\\) and spans pending on "replica-b"`,
        ),
      ),
    ]);
    expect(await splitCounter(a)).toBe(1);

    // B, after decision_wait, finds A's record: its two spans become late spans of it, not a second
    // interaction and not dropped.
    await pollUntil(async () => (b.warnings.length > 0 ? true : undefined), {
      what: 'the warning of replica B',
      timeoutMs: 10_000,
    });
    expect(b.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `trace ${TRACE} was split across replicas: this one \\("replica-b"\\) and interactions recorded by ` +
            `"replica-a"; 2 spans received here kept as late spans of ${interactionId}`,
        ),
      ),
    ]);
    expect(await splitCounter(b)).toBe(1);
    expect(b.collector.processor.stats.lateSpans).toBe(2);

    expect(await count('SELECT count(*) AS n FROM interactions')).toBe(1);
    const late = await adminQuery(database.url, 'SELECT interaction_id, span_id FROM late_spans ORDER BY span_id');
    expect(late.rows).toEqual([
      { interaction_id: interactionId, span_id: '00000000000000b1' },
      { interaction_id: interactionId, span_id: '00000000000000b2' },
    ]);
    await pollUntil(async () => ((await count('SELECT count(*) AS n FROM pending_spans')) === 0 ? true : undefined), {
      what: 'every pending span released',
    });
  });

  it('keeps unsplit traces quiet', async () => {
    const before = [a.warnings.length, b.warnings.length];
    const other = '6d2f5b3c0e9a8f7b6d2f5b3c0e9a8f7b';
    // A whole trace on one replica: no report.
    const { host, port } = b.collector.otlpAddress!;
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: 's' },
              spans: [
                {
                  traceId: other,
                  spanId: '00000000000000c1',
                  name: 'invoke_agent solo',
                  kind: 1,
                  flags: 0x100,
                  startTimeUnixNano: '1750000000000000000',
                  endTimeUnixNano: '1750000000100000000',
                  attributes: [
                    { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                    { key: 'gen_ai.agent.id', value: { stringValue: 'solo' } },
                  ],
                  status: {},
                },
              ],
            },
          ],
        },
      ],
    };
    const response = await fetch(`http://${host}:${port}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    await pollUntil(
      async () => ((await b.collector.store.getInteraction(`${other}-00000000000000c1`)) ? true : undefined),
      { what: 'the solo interaction' },
    );
    expect([a.warnings.length, b.warnings.length]).toEqual(before);
    expect(await splitCounter(b)).toBe(1);
  });
});
