/**
 * Bad input at the collector's door: each case gets a clear answer, and the collector
 * keeps recording interactions afterwards.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCollector, testConfigYaml, type TestCollector } from '../helpers/collector.ts';

let collector: TestCollector;
beforeAll(async () => {
  // A small body limit, so the oversize cases stay small.
  collector = await startTestCollector({
    yaml: (dir) =>
      testConfigYaml(dir).replace(
        'endpoint: 127.0.0.1:0\n',
        'endpoint: 127.0.0.1:0\n        max_request_body_size: 64KiB\n',
      ),
  });
});
afterAll(async () => {
  await collector?.close();
});

let counter = 0;
function agentRequest(extraSpans: object[] = []) {
  const traceId = (++counter).toString(16).padStart(32, 'a');
  const spanId = counter.toString(16).padStart(16, 'b');
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bad-input' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId,
                name: 'invoke_agent a',
                kind: 1,
                startTimeUnixNano: '1764442000000000000',
                endTimeUnixNano: '1764442000005000000',
                attributes: [
                  { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                  { key: 'gen_ai.agent.id', value: { stringValue: 'bad-input-agent' } },
                ],
              },
              ...extraSpans,
            ],
          },
        ],
      },
    ],
  };
  return { interactionId: `${traceId}-${spanId}`, json: JSON.stringify(body) };
}

const post = (body: string | Uint8Array, headers: Record<string, string>) =>
  fetch(collector.otlpUrl, { method: 'POST', headers, body });

async function stillServing(): Promise<void> {
  const { interactionId, json } = agentRequest();
  const response = await post(json, { 'content-type': 'application/json' });
  expect(response.status).toBe(200);
  await collector.waitForInteraction((r) => r.interactionId === interactionId);
}

it('answers malformed protobuf with 400 and a google.rpc.Status naming the problem, then keeps serving', async () => {
  const response = await post(new Uint8Array([0x0a, 0xff, 0xff, 0x01]), { 'content-type': 'application/x-protobuf' });
  expect(response.status).toBe(400);
  expect(response.headers.get('content-type')).toContain('application/x-protobuf');
  expect(Buffer.from(await response.arrayBuffer()).toString('latin1')).toMatch(/protobuf|truncated|length/i);
  await stillServing();
});

it('answers malformed JSON with 400 in JSON, then keeps serving', async () => {
  const response = await post('{"resourceSpans": [', { 'content-type': 'application/json' });
  expect(response.status).toBe(400);
  expect(((await response.json()) as { message: string }).message).toMatch(/json/i);
  await stillServing();
});

it('answers 415 for another content type, then keeps serving', async () => {
  const response = await post('hello', { 'content-type': 'text/plain' });
  expect(response.status).toBe(415);
  await stillServing();
});

it('answers 413 above the body limit, also when the limit is crossed only after decompression', async () => {
  const big = 'x'.repeat(200 * 1024);
  expect((await post(big, { 'content-type': 'application/json' })).status).toBe(413);
  const zipped = gzipSync(Buffer.from(JSON.stringify({ resourceSpans: [], padding: big })));
  expect(zipped.length).toBeLessThan(64 * 1024);
  expect((await post(zipped, { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status).toBe(413);
  await stillServing();
});

it('accepts the valid spans of a partially invalid batch and reports the rejected count', async () => {
  const bad = { traceId: 'zz', spanId: '1', name: 'broken', kind: 1, startTimeUnixNano: '1', endTimeUnixNano: '2' };
  const { interactionId, json } = agentRequest([bad]);
  const response = await post(json, { 'content-type': 'application/json' });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { partialSuccess?: { rejectedSpans: string | number; errorMessage: string } };
  expect(Number(body.partialSuccess?.rejectedSpans)).toBe(1);
  expect(body.partialSuccess?.errorMessage).toMatch(/traceId/);
  await collector.waitForInteraction((r) => r.interactionId === interactionId);
});
