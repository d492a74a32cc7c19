/**
 * Fuzzing the OTLP door: thousands of mutated, once-valid OTLP bodies — protobuf and JSON, as the
 * official serializers write them — sent to a running collector. Every reply must be
 * a 2xx or a 4xx with a message that says what is wrong (never a 5xx, never a dropped
 * connection), and afterwards the collector is healthy and still turns spans into interactions.
 *
 * The mutations are seeded, so a failure names the seed and the case and can be replayed.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildRealisticSpans, serializeJson, serializeProtobuf } from '../fixtures/otlp/realistic-spans.ts';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';
import { mutateBytes, pick, random, type Rng } from '../fixtures/otlp/mutate-bytes.ts';

const CASES_PER_ENCODING = 3_000;
const IN_FLIGHT = 8;
const SEED = Number(process.env.EVALON_FUZZ_SEED ?? 20261129);

let collector: TestCollector;
let protobufBody: Uint8Array;
let jsonBody: Uint8Array;

beforeAll(async () => {
  collector = await startTestCollector();
  // Two interactions of ten spans, the chat spans with a little message content.
  const spans = await buildRealisticSpans(20);
  protobufBody = serializeProtobuf(spans);
  jsonBody = serializeJson(spans);
});
afterAll(async () => {
  await collector?.close();
});

const ODD_VALUES: unknown[] = [
  null,
  '',
  'x',
  -1,
  0,
  1.5,
  2 ** 64,
  -(2 ** 63),
  '18446744073709551616',
  'NaN',
  true,
  [],
  {},
  [null],
  { stringValue: 7 },
  'ffffffffffffffffffffffffffffffff',
  '00000000000000000000000000000000',
  'zz',
  '\u0000\ud800',
  'a'.repeat(10_000),
];

/** Structural JSON mutations: a random node replaced by an odd value, deleted, or duplicated. */
function mutateJsonTree(body: Uint8Array, rng: Rng): Uint8Array {
  const root = JSON.parse(Buffer.from(body).toString('utf8')) as unknown;
  const containers: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) {
      for (const [index, child] of node.entries()) {
        containers.push({ parent: node, key: index });
        walk(child);
      }
    } else if (node && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        containers.push({ parent: node as Record<string, unknown>, key });
        walk(child);
      }
    }
  };
  walk(root);
  for (let i = 0, n = 1 + pick(rng, 3); i < n && containers.length > 0; i++) {
    const { parent, key } = containers[pick(rng, containers.length)];
    const choice = pick(rng, 3);
    if (choice === 0) (parent as Record<string | number, unknown>)[key] = ODD_VALUES[pick(rng, ODD_VALUES.length)];
    else if (choice === 1) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
    } else if (Array.isArray(parent)) parent.push(structuredClone(parent[key as number]));
    else parent[`${key as string}`] = [parent[key as string], parent[key as string]];
  }
  return new TextEncoder().encode(JSON.stringify(root));
}

interface Reply {
  status: number;
  contentType: string;
  body: Buffer;
}

async function send(body: Uint8Array, contentType: string, gzip = false): Promise<Reply> {
  const headers: Record<string, string> = {
    'content-type': contentType,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  };
  const response = await fetch(collector.otlpUrl, { method: 'POST', headers, body });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** What a reply says went wrong, or why the reply itself is wrong. */
function problemWith(reply: Reply): string | undefined {
  if (reply.status >= 200 && reply.status < 300) return undefined;
  if (reply.status < 400 || reply.status >= 500)
    return `status ${reply.status}: ${reply.body.toString('utf8').slice(0, 200)}`;
  if (reply.contentType.includes('json')) {
    const message = (JSON.parse(reply.body.toString('utf8')) as { message?: unknown }).message;
    return typeof message === 'string' && message.length > 5
      ? undefined
      : `4xx JSON reply without a message: ${reply.body.toString('utf8')}`;
  }
  // A google.rpc.Status in protobuf: its message (field 2) is readable text.
  const text = reply.body.toString('latin1').replace(/[^\x20-\x7e]/g, '');
  return text.length > 5 ? undefined : `4xx protobuf reply without a readable message (${reply.body.length} bytes)`;
}

async function fuzz(encoding: 'protobuf' | 'json'): Promise<{ statuses: Map<number, number>; failures: string[] }> {
  const rng = random(SEED + (encoding === 'json' ? 1 : 0));
  const cases = Array.from({ length: CASES_PER_ENCODING }, (_, index) => {
    const original = encoding === 'protobuf' ? protobufBody : jsonBody;
    const body = encoding === 'json' && rng() < 0.5 ? mutateJsonTree(original, rng) : mutateBytes(original, rng);
    // One case in five travels gzipped: the mutated body compressed, or a valid gzip stream mutated.
    const gzip = rng() < 0.2;
    if (!gzip) return { index, body, gzip };
    return { index, body: rng() < 0.5 ? gzipSync(body) : mutateBytes(gzipSync(original), rng), gzip };
  });
  const contentType = encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json';
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < cases.length) {
        const { index, body, gzip } = cases[next++];
        let problem: string | undefined;
        try {
          const reply = await send(body, contentType, gzip);
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          problem = problemWith(reply);
        } catch (error) {
          problem = `no reply: ${(error as Error).message}`;
        }
        if (problem) failures.push(`${encoding}${gzip ? ' gzip' : ''} case ${index} (seed ${SEED}): ${problem}`);
      }
    }),
  );
  return { statuses, failures };
}

async function stillServing(): Promise<void> {
  const health = await fetch(new URL('/healthz', collector.apiUrl));
  expect(health.status).toBe(200);
  const spans = await buildRealisticSpans(10);
  const root = spans.find((span) => span.name.startsWith('invoke_agent'))!;
  const interactionId = `${root.spanContext().traceId}-${root.spanContext().spanId}`;
  expect((await send(serializeProtobuf(spans), 'application/x-protobuf')).status).toBe(200);
  await collector.waitForInteraction((record) => record.interactionId === interactionId, 15_000);
}

it(`answers ${CASES_PER_ENCODING} mutated protobuf bodies with 2xx or a clear 4xx, then keeps serving`, async () => {
  const { statuses, failures } = await fuzz('protobuf');
  expect(failures).toEqual([]);
  // The mutations must reach both kinds of answer, or the test proves nothing.
  expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
  expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
  await stillServing();
}, 120_000);

it(`answers ${CASES_PER_ENCODING} mutated JSON bodies with 2xx or a clear 4xx, then keeps serving`, async () => {
  const { statuses, failures } = await fuzz('json');
  expect(failures).toEqual([]);
  expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
  expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
  await stillServing();
}, 120_000);
