/**
 * Several `otlphttp/<name>` exporters at once, each with its own endpoint, headers and TLS: an
 * interaction sent by the official OTLP exporter is evaluated, and its verdict event and evaluation
 * span reach both sinks that the pipelines list, one of them over HTTPS with its own CA as `ca_file`
 * and a client certificate. A third sink that refuses everything does not stop the others; its
 * failed exports are counted by exporter id and signal on the Prometheus scrape.
 */
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestCertificates, type TestCertificates } from '../helpers/certificates.ts';
import { startTestCollector, type TestCollector } from '../helpers/collector.ts';
import { startOtlpCapture, type OtlpCapture } from '../helpers/otlp-capture.ts';
import { pollUntil } from '../helpers/poll.ts';
import { sampleValue, scrape } from '../helpers/prometheus-text.ts';

let certs: TestCertificates;
let tempo: OtlpCapture;
let secure: OtlpCapture;
let refusing: OtlpCapture;
let collector: TestCollector;

beforeAll(async () => {
  certs = createTestCertificates();
  tempo = await startOtlpCapture();
  // HTTPS with a CA of its own, requiring a client certificate that CA signed.
  secure = await startOtlpCapture({ tls: { cert: certs.server.cert, key: certs.server.key, ca: certs.ca.cert } });
  refusing = await startOtlpCapture();
  refusing.respondWith(400);
  collector = await startTestCollector({
    yaml: (dir) => `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions: { settle: 100ms, decision_wait: 3s }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
    evaluators:
      contains:
        values: [shipped]
        agents:
          support-agent: { trigger: interaction }
exporters:
  otlphttp/tempo:
    endpoint: ${tempo.url}
    headers: { x-scope-orgid: acme }
  otlphttp/secure:
    endpoint: ${secure.url}
    compression: none
    tls: { ca_file: ${certs.ca.certFile}, cert_file: ${certs.client.certFile}, key_file: ${certs.client.keyFile} }
  otlphttp/refusing:
    endpoint: ${refusing.url}
  prometheus: { endpoint: 127.0.0.1:0 }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [interactions, evaluation]
      exporters: [otlphttp/tempo, otlphttp/secure]
    logs: { exporters: [otlphttp/refusing, otlphttp/tempo, otlphttp/secure] }
    metrics: { exporters: [prometheus] }
`,
  });
});
afterAll(async () => {
  await collector?.close();
  await Promise.all([tempo?.close(), secure?.close(), refusing?.close()]);
  certs?.remove();
});

it('sends the same verdict event and evaluation span to each exporter the pipelines list', async () => {
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new ProtoExporter({ url: collector.otlpUrl }) })],
  });
  const tracer = provider.getTracer('named-exporters-test');
  const agent = tracer.startSpan('invoke_agent support-agent', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'support-agent' },
  });
  tracer
    .startSpan(
      'chat claude',
      { attributes: { 'gen_ai.operation.name': 'chat' } },
      trace.setSpan(context.active(), agent),
    )
    .end();
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Your order has shipped.' }] }]),
  );
  agent.end();
  await provider.forceFlush();
  await provider.shutdown();
  const interactionId = `${agent.spanContext().traceId}-${agent.spanContext().spanId}`;

  const verdictOf = (sink: OtlpCapture) =>
    pollUntil(() => sink.logs.find((record) => record.attributes['evalon.interaction.id'] === interactionId), {
      what: `the verdict event at ${sink.url}`,
    });
  const [atTempo, atSecure] = await Promise.all([verdictOf(tempo), verdictOf(secure)]);
  for (const event of [atTempo, atSecure]) {
    expect(event).toMatchObject({
      eventName: 'gen_ai.evaluation.result',
      traceId: agent.spanContext().traceId,
      spanId: agent.spanContext().spanId,
    });
    expect(event.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'contains',
      'evalon.evaluation.outcome': 'pass',
    });
  }
  expect(atSecure.attributes).toEqual(atTempo.attributes);

  const evaluationSpanOf = (sink: OtlpCapture) =>
    pollUntil(
      () =>
        sink.spans.find((span) => span.name === 'evaluate contains' && span.traceId === agent.spanContext().traceId),
      {
        what: `the evaluation span at ${sink.url}`,
      },
    );
  const [spanAtTempo, spanAtSecure] = await Promise.all([evaluationSpanOf(tempo), evaluationSpanOf(secure)]);
  expect(spanAtSecure.spanId).toBe(spanAtTempo.spanId);

  // Each exporter with its own headers and encoding settings.
  expect(tempo.requests.find((r) => r.path === '/v1/logs')?.headers['x-scope-orgid']).toBe('acme');
  expect(secure.requests.find((r) => r.path === '/v1/logs')?.headers['x-scope-orgid']).toBeUndefined();
  expect(tempo.requests.find((r) => r.path === '/v1/logs')?.contentEncoding).toBe('gzip');
  expect(secure.requests.find((r) => r.path === '/v1/logs')?.contentEncoding).toBeUndefined();
  // The refusing sink was asked too: it refused, and the others received all the same.
  expect(refusing.requests.some((r) => r.path === '/v1/logs')).toBe(true);
  expect(refusing.logs).toEqual([]);

  const prometheus = collector.collector.prometheusAddress!;
  const failures = (exporter: string, signal: string) => async () => {
    const { samples } = await scrape(prometheus);
    return sampleValue(samples, 'evalon_exporter_failures_total', { exporter, signal });
  };
  await pollUntil(async () => ((await failures('otlphttp/refusing', 'logs')()) ?? 0) >= 1 || undefined, {
    what: 'the failed exports of otlphttp/refusing on the scrape',
  });
  expect(await failures('otlphttp/tempo', 'logs')()).toBe(0);
  expect(await failures('otlphttp/secure', 'traces')()).toBe(0);
});
