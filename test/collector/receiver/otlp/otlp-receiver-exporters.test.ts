/**
 * The receiver against the real OpenTelemetry JS exporters: OTLP/HTTP JSON
 * (@opentelemetry/exporter-trace-otlp-http) and protobuf (@opentelemetry/exporter-trace-otlp-proto),
 * each plain and gzip-compressed. Whatever the SDK recorded must arrive as SpanData unchanged.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import {
  SPAN_FLAGS_HAS_IS_REMOTE,
  SPAN_FLAGS_IS_REMOTE,
  SpanKind as OtlpKind,
  StatusCode,
  hasLocalParent,
  hasRemoteParent,
  type SpanData,
} from '../../../../collector/model/span.ts';
import { startReceiver, type ReceiverHarness } from './helpers/receiver-harness.ts';

const REMOTE_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const REMOTE_PARENT_ID = 'b7ad6b7169203331';
const LINKED_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const LINKED_SPAN_ID = '00f067aa0ba902b7';
const MESSAGES_JSON = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Where is my refund?' }] }]);

/** An agent-shaped trace: an invoke_agent root, a chat child, and a span continuing a remote trace. */
async function recordSpans(): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-agent', 'deployment.environment.name': 'test' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer('evalon-test-scope', '1.2.3');
  const root = tracer.startSpan('invoke_agent support-agent', {
    kind: SpanKind.SERVER,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.usage.input_tokens': 1234,
      'gen_ai.request.temperature': 0.25,
      'user.premium': true,
      'evalon.agent.roles': ['customer-facing', 'billing'],
      'gen_ai.input.messages': MESSAGES_JSON,
      'app.retry.counts': [1, 2, 3],
      'app.negative': -42,
    },
    links: [
      {
        context: { traceId: LINKED_TRACE_ID, spanId: LINKED_SPAN_ID, traceFlags: TraceFlags.SAMPLED },
        attributes: { 'link.kind': 'follows' },
      },
    ],
  });
  root.addEvent('gen_ai.evaluation.result', {
    'gen_ai.evaluation.score.value': 0.9,
    'gen_ai.evaluation.name': 'quality',
  });
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
  const child = tracer.startSpan(
    'chat claude',
    { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'chat' } },
    trace.setSpan(ROOT_CONTEXT, root),
  );
  child.setStatus({ code: SpanStatusCode.OK });
  child.end();
  root.end();
  const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: REMOTE_TRACE_ID,
    spanId: REMOTE_PARENT_ID,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
  tracer.startSpan('handle request', { kind: SpanKind.CONSUMER }, remoteParent).end();
  await provider.forceFlush();
  const spans = memory.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

function exportWith(
  exporter: OTLPJsonTraceExporter | OTLPProtoTraceExporter,
  spans: ReadableSpan[],
): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

/** Forwards to the receiver and remembers each request's headers (to see what the exporter sent). */
async function startRecordingProxy(
  target: string,
): Promise<{ url: string; headers: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    headers.push(req.headers);
    const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    headers,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const nanos = (time: [number, number]) => time[0] * 1e9 + time[1];

const exporters = [
  {
    name: 'OTLP/JSON',
    make: (url: string, compression: CompressionAlgorithm) => new OTLPJsonTraceExporter({ url, compression }),
  },
  {
    name: 'OTLP/protobuf',
    make: (url: string, compression: CompressionAlgorithm) => new OTLPProtoTraceExporter({ url, compression }),
  },
];

describe.each(exporters)('the receiver with the real $name exporter', ({ name, make }) => {
  let harness: ReceiverHarness;
  afterEach(() => harness?.receiver.shutdown());

  it.each([CompressionAlgorithm.NONE, CompressionAlgorithm.GZIP])(
    'receives every field the SDK recorded (compression %s)',
    async (compression) => {
      harness = await startReceiver();
      const proxy = await startRecordingProxy(harness.url);
      const recorded = await recordSpans();
      const exporter = make(proxy.url, compression);
      const result = await exportWith(exporter, recorded);
      await exporter.shutdown();
      await proxy.close();

      expect(proxy.headers).toHaveLength(1);
      expect(proxy.headers[0]['content-type']).toBe(
        name === 'OTLP/JSON' ? 'application/json' : 'application/x-protobuf',
      );
      expect(proxy.headers[0]['content-encoding']).toBe(compression === CompressionAlgorithm.GZIP ? 'gzip' : undefined);

      expect(result.code, String(result.error)).toBe(ExportResultCode.SUCCESS);
      expect(harness.consumer.batches).toHaveLength(1);
      expect(harness.received).toEqual([{ accepted: 3, rejected: 0 }]);
      const received = harness.consumer.spans();
      const byName = (name: string): SpanData => {
        const span = received.find((candidate) => candidate.name === name);
        if (span === undefined) throw new Error(`span ${name} was not received`);
        return span;
      };

      for (const sdkSpan of recorded) {
        const span = byName(sdkSpan.name);
        expect(span.traceId).toBe(sdkSpan.spanContext().traceId);
        expect(span.spanId).toBe(sdkSpan.spanContext().spanId);
        expect(span.parentSpanId).toBe(sdkSpan.parentSpanContext?.spanId);
        expect(span.kind).toBe(sdkSpan.kind + 1); // the API's enum starts at INTERNAL = 0, OTLP's at UNSPECIFIED
        expect(Math.abs(span.startTimeUnixNano - nanos(sdkSpan.startTime))).toBeLessThan(1000);
        expect(Math.abs(span.endTimeUnixNano - nanos(sdkSpan.endTime))).toBeLessThan(1000);
        expect(span.origin.resource['service.name']).toBe('support-agent');
        expect(span.origin.scopeName).toBe('evalon-test-scope');
        expect(span.origin.scopeVersion).toBe('1.2.3');
      }

      const root = byName('invoke_agent support-agent');
      expect(root.kind).toBe(OtlpKind.SERVER);
      expect(root.parentSpanId).toBeUndefined();
      expect(root.attributes).toEqual({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.usage.input_tokens': 1234,
        'gen_ai.request.temperature': 0.25,
        'user.premium': true,
        'evalon.agent.roles': ['customer-facing', 'billing'],
        'gen_ai.input.messages': MESSAGES_JSON,
        'app.retry.counts': [1, 2, 3],
        'app.negative': -42,
      });
      expect(JSON.parse(root.attributes['gen_ai.input.messages'] as string)[0].role).toBe('user');
      expect(root.status).toEqual({ code: StatusCode.ERROR, message: 'tool failed' });
      expect(root.events).toHaveLength(1);
      expect(root.events[0].name).toBe('gen_ai.evaluation.result');
      expect(root.events[0].attributes).toEqual({
        'gen_ai.evaluation.score.value': 0.9,
        'gen_ai.evaluation.name': 'quality',
      });
      expect(root.events[0].timeUnixNano).toBeGreaterThanOrEqual(root.startTimeUnixNano);
      expect(root.links).toEqual([
        { traceId: LINKED_TRACE_ID, spanId: LINKED_SPAN_ID, attributes: { 'link.kind': 'follows' } },
      ]);
      expect(root.flags & 0xff).toBe(TraceFlags.SAMPLED);

      const chat = byName('chat claude');
      expect(chat.kind).toBe(OtlpKind.CLIENT);
      expect(chat.parentSpanId).toBe(root.spanId);
      expect(chat.traceId).toBe(root.traceId);
      expect(chat.status.code).toBe(StatusCode.OK);
      expect(chat.flags & (SPAN_FLAGS_HAS_IS_REMOTE | SPAN_FLAGS_IS_REMOTE)).toBe(SPAN_FLAGS_HAS_IS_REMOTE);
      expect(hasLocalParent(chat)).toBe(true);

      const continued = byName('handle request');
      expect(continued.kind).toBe(OtlpKind.CONSUMER);
      expect(continued.traceId).toBe(REMOTE_TRACE_ID);
      expect(continued.parentSpanId).toBe(REMOTE_PARENT_ID);
      expect(continued.flags & (SPAN_FLAGS_HAS_IS_REMOTE | SPAN_FLAGS_IS_REMOTE)).toBe(
        SPAN_FLAGS_HAS_IS_REMOTE | SPAN_FLAGS_IS_REMOTE,
      );
      expect(hasRemoteParent(continued)).toBe(true);

      // Spans of one scope share one origin object (the interaction processor relies on it).
      expect(new Set(received.map((span) => span.origin)).size).toBe(1);
    },
  );
});

describe('the receiver with a bearer token and the real OTLP/protobuf exporter', () => {
  let harness: ReceiverHarness;
  afterEach(() => harness?.receiver.shutdown());

  it('accepts an exporter configured with the token and refuses one without it', async () => {
    harness = await startReceiver({ bearerToken: 'ingest-token' });
    const recorded = await recordSpans();
    const withToken = new OTLPProtoTraceExporter({
      url: harness.url,
      headers: { Authorization: 'Bearer ingest-token' },
    });
    expect((await exportWith(withToken, recorded)).code).toBe(ExportResultCode.SUCCESS);
    await withToken.shutdown();
    const withoutToken = new OTLPProtoTraceExporter({ url: harness.url });
    const refused = await exportWith(withoutToken, recorded);
    await withoutToken.shutdown();
    expect(refused.code).toBe(ExportResultCode.FAILED);
    expect(String(refused.error)).toMatch(/401|Unauthorized/);
    expect(harness.consumer.spans()).toHaveLength(3);
  });
});
