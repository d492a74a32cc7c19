/**
 * The collector's own health on its Prometheus scrape: spans the receiver refused, by reason and
 * protocol (a request without the token over HTTP and over gRPC, one above the body limit, one that
 * does not decode, one throttled because too many traces are pending), traces evicted because more
 * than `max_pending_traces` were pending (none may wait here: `max_waiting_traces: 0`), and a span
 * that arrived after its interaction was recorded; the traces waiting, at 0. (Failed exports by
 * exporter: test/e2e/named-exporters.test.ts.) The series of every reason exist from the start, at 0.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';
import { createRawTraceClient } from '../helpers/grpc-client.ts';
import { pollUntil } from '../helpers/poll.ts';
import { sampleValue, scrape } from '../helpers/prometheus-text.ts';

const TOKEN = 'ingest-token-5e6f';
let collector: TestCollector;

beforeAll(async () => {
  collector = await startTestCollector({
    yaml: (dir) => `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0, max_request_body_size: 4KiB, auth: { bearer_token: ${TOKEN} } }
      grpc: { endpoint: 127.0.0.1:0, auth: { bearer_token: ${TOKEN} } }
processors:
  interactions: { settle: 100ms, decision_wait: 30s, max_pending_traces: 1, max_waiting_traces: 0 }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
exporters:
  prometheus: { endpoint: 127.0.0.1:0 }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    metrics: { exporters: [prometheus] }
`,
  });
});
afterAll(async () => {
  await collector?.close();
});

const hex = (n: number, length: number) => n.toString(16).padStart(length, '0');

/** One span in OTLP/JSON; an agent invocation unless it has a parent. */
function span(trace: number, id: number, parent?: number) {
  return {
    traceId: hex(trace, 32),
    spanId: hex(id, 16),
    ...(parent !== undefined ? { parentSpanId: hex(parent, 16) } : {}),
    name: parent === undefined ? 'invoke_agent support-agent' : 'chat claude',
    kind: 1,
    startTimeUnixNano: '1764442000000000000',
    endTimeUnixNano: '1764442000005000000',
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: parent === undefined ? 'invoke_agent' : 'chat' } },
      ...(parent === undefined ? [{ key: 'gen_ai.agent.id', value: { stringValue: 'support-agent' } }] : []),
    ],
  };
}

const request = (spans: object[]) => JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ spans }] }] });

function post(body: string | Uint8Array, headers: Record<string, string> = {}) {
  return fetch(collector.otlpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body,
  });
}

async function metrics() {
  return (await scrape(collector.collector.prometheusAddress!)).samples;
}

it('counts refused spans by reason and protocol, evicted traces and late spans', async () => {
  const before = await metrics();
  for (const protocol of ['http', 'grpc'])
    for (const reason of ['auth', 'too_large', 'bad_request', 'throttled'])
      expect(
        sampleValue(before, 'evalon_receiver_refused_spans_total', { reason, protocol }),
        `${protocol} ${reason}`,
      ).toBe(0);
  expect(sampleValue(before, 'evalon_traces_evicted_total')).toBe(0);
  expect(sampleValue(before, 'evalon_spans_late_total')).toBe(0);

  // Refused: no token (HTTP and gRPC), above the body limit, a body that does not decode.
  expect((await post(request([span(1, 1)]), { authorization: '' })).status).toBe(401);
  const grpc = createRawTraceClient(collector.collector.otlpGrpcAddress!.port);
  try {
    expect((await grpc.export(new Uint8Array())).code).toBe(16); // UNAUTHENTICATED
  } finally {
    grpc.close();
  }
  expect((await post(request([span(1, 1)]).padEnd(8192, ' '))).status).toBe(413);
  expect((await post(new Uint8Array([0x0a, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' })).status).toBe(
    400,
  );

  // A late span: the interaction is recorded, then a child of its root arrives.
  expect((await post(request([span(1, 1), span(1, 2, 1)]))).status).toBe(200);
  await collector.waitForInteraction((record) => record.interactionId === `${hex(1, 32)}-${hex(1, 16)}`);
  expect((await post(request([span(1, 3, 1)]))).status).toBe(200);

  // An eviction: two traces waiting for a parent that never comes, one more than max_pending_traces.
  expect((await post(request([span(2, 20, 99), span(3, 30, 99)]))).status).toBe(200);
  const afterEviction = await pollUntil(async () => {
    const samples = await metrics();
    return sampleValue(samples, 'evalon_traces_evicted_total') === 1 ? samples : undefined;
  });
  expect(sampleValue(afterEviction, 'evalon_spans_late_total')).toBe(1);

  // Throttled: the trace still pending holds max_pending_traces, so a new batch of two spans waits.
  const throttled = await post(request([span(4, 40), span(4, 41, 40)]));
  expect(throttled.status).toBe(429);
  expect(throttled.headers.get('retry-after')).toBe('1');

  const after = await metrics();
  const refused = (reason: string, protocol: string) =>
    sampleValue(after, 'evalon_receiver_refused_spans_total', { reason, protocol });
  expect({
    auth: refused('auth', 'http'),
    grpcAuth: refused('auth', 'grpc'),
    tooLarge: refused('too_large', 'http'),
    badRequest: refused('bad_request', 'http'),
    throttled: refused('throttled', 'http'),
  }).toEqual({ auth: 1, grpcAuth: 1, tooLarge: 1, badRequest: 1, throttled: 2 });
  expect(sampleValue(after, 'evalon_traces_evicted_total')).toBe(1);
  expect(sampleValue(after, 'evalon_spans_late_total')).toBe(1);
  expect(sampleValue(after, 'evalon_waiting_traces')).toBe(0);
});

it('counts spans refused one by one (partial success) as bad_request', async () => {
  const before = sampleValue(await metrics(), 'evalon_receiver_refused_spans_total', {
    reason: 'bad_request',
    protocol: 'http',
  });
  // The pending trace of the first test holds max_pending_traces: a batch whose every span is
  // refused is answered without reaching the processor, so it is not throttled.
  const response = await post(
    request([
      { ...span(5, 50), traceId: 'not-hex' },
      { ...span(5, 51), spanId: '' },
    ]),
  );
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ partialSuccess: { rejectedSpans: '2' } });
  const after = sampleValue(await metrics(), 'evalon_receiver_refused_spans_total', {
    reason: 'bad_request',
    protocol: 'http',
  });
  expect(after).toBe((before ?? 0) + 2);
});
