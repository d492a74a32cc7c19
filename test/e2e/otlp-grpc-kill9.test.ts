/**
 * Durability over gRPC: an Export answered OK means its spans are stored, so a collector killed
 * with SIGKILL while gRPC clients are sending loses none of the spans it acknowledged, and on
 * restart completes the interactions that were pending (the gRPC twin of kill9.test.ts).
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { encodeOtlpProtobuf, type OtlpJsonSpan } from '../fixtures/otlp/encode-otlp-protobuf.ts';
import { testConfigYaml } from '../helpers/collector.ts';
import { spawnCollector, type CollectorProcess } from '../helpers/collector-process.ts';
import { pollUntil } from '../helpers/poll.ts';
import { createRawTraceClient, type RawTraceClient } from '../helpers/grpc-client.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-grpc-kill9-'));
const processes: CollectorProcess[] = [];
const clients: RawTraceClient[] = [];
afterAll(() => {
  for (const client of clients) client.close();
  for (const p of processes) p.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** An ExportTraceServiceRequest of one invoke_agent span with a model-call child per interaction id. */
function request(interactionIds: string[]): Uint8Array {
  const now = BigInt(Date.now()) * 1_000_000n;
  const times = { startTimeUnixNano: String(now), endTimeUnixNano: String(now + 2000n), flags: 0x101 };
  const spans: OtlpJsonSpan[] = interactionIds.flatMap((interactionId) => {
    const [traceId, root] = interactionId.split('-');
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
  return encodeOtlpProtobuf({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'grpc-kill9' } }] },
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

function grpcPort(collector: CollectorProcess): number {
  const match = /OTLP\/gRPC receiver listening on \S+:(\d+)/.exec(collector.log());
  if (!match) throw new Error(`no gRPC receiver in the collector log:\n${collector.log()}`);
  return Number(match[1]);
}

it('loses no span acknowledged over gRPC when killed with ' +
  'SIGKILL, and completes pending interactions on restart', async () => {
  const configFile = join(dir, 'otel-config.yaml');
  writeFileSync(
    configFile,
    testConfigYaml(dir)
      .replace('settle: 150ms', 'settle: 500ms')
      .replace('      http:\n', '      grpc:\n        endpoint: 127.0.0.1:0\n      http:\n'),
  );
  const first = await spawnCollector(configFile);
  processes.push(first);
  const port = grpcPort(first);

  const acknowledged: string[] = [];
  let stop = false;
  const senders = Array.from({ length: 4 }, async () => {
    const client = createRawTraceClient(port);
    clients.push(client);
    while (!stop) {
      const ids = Array.from(
        { length: 25 },
        () => `${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}`,
      );
      const result = await client.export(request(ids));
      // Anything but OK (UNAVAILABLE for a call cut by the kill) was not acknowledged.
      if (result.code === GrpcStatus.OK) acknowledged.push(...ids);
    }
  });
  await pollUntil(() => (acknowledged.length >= 2_000 ? true : undefined), {
    timeoutMs: 60_000,
    what: '2000 interactions acknowledged over gRPC',
  });
  first.child.kill('SIGKILL');
  await first.exited;
  stop = true;
  await Promise.all(senders);

  const second = await spawnCollector(configFile);
  processes.push(second);
  expect(second.log()).toMatch(/recovered \d+ stored spans/);
  const missing = await pollUntil(
    async () => {
      const absent = await missingInteractions(second.apiUrl, acknowledged);
      return absent.length === 0 ? absent : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500, what: 'every interaction acknowledged over gRPC in the ledger' },
  );
  expect(missing).toEqual([]);
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
}, 180_000);
