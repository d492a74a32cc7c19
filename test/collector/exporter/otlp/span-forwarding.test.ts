/**
 * `forward: true`: received spans go downstream as they came in. Spans are decoded by the
 * collector's receiver, forwarded by the exporter, and decoded again by a local OTLP server: the
 * two decodings must be equal.
 */
import { trace, SpanStatusCode, context as otelContext } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../collector/logger.ts';
import { BackpressureError } from '../../../../collector/pipeline/consumer.ts';
import {
  createOtlpReceiver,
  decodeTraceRequest,
  type OtlpReceiver,
} from '../../../../collector/receiver/otlp/index.ts';
import {
  createForwardingConsumer,
  createTelemetryExporters,
  type TelemetryExporters,
} from '../../../../collector/exporter/index.ts';
import { createSpanForwarder } from '../../../../collector/exporter/otlp/span-forwarder.ts';
import { hrTimeOf } from '../../../../collector/exporter/otlp/readable-span.ts';
import { InMemorySpanConsumer } from '../../../helpers/in-memory-span-consumer.ts';
import { pollUntil } from '../../../helpers/poll.ts';
import { startOtlpCapture, type OtlpCapture } from '../../../helpers/otlp-capture.ts';
import { telemetryConfig } from '../../../helpers/telemetry-fixtures.ts';

const kv = (key: string, value: Record<string, unknown>) => ({ key, value });

/** Every kind of value the model keeps: maps, arrays, bytes, doubles, ints, events, links, a remote parent. */
const REQUEST = {
  resourceSpans: [
    {
      resource: {
        attributes: [
          kv('service.name', { stringValue: 'support' }),
          kv('deployment', { kvlistValue: { values: [kv('region', { stringValue: 'eu' })] } }),
        ],
      },
      scopeSpans: [
        {
          scope: { name: 'agent-sdk', version: '1.2.3' },
          spans: [
            {
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: 'eee19b7ec3c1b174',
              parentSpanId: '1111111111111111',
              flags: 0x301,
              name: 'invoke_agent support-agent',
              kind: 3,
              startTimeUnixNano: '1764442000000000000',
              endTimeUnixNano: '1764442000005123456',
              attributes: [
                kv('gen_ai.operation.name', { stringValue: 'invoke_agent' }),
                kv('gen_ai.usage.input_tokens', { intValue: '1234' }),
                kv('temperature', { doubleValue: 0.25 }),
                kv('ok', { boolValue: true }),
                kv('roles', { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } }),
                kv('blob', { bytesValue: 'AAEC' }),
                kv('nested', {
                  kvlistValue: {
                    values: [kv('x', { intValue: 1 }), kv('y', { arrayValue: { values: [{ doubleValue: 1.5 }] } })],
                  },
                }),
              ],
              events: [
                {
                  timeUnixNano: '1764442000001000000',
                  name: 'gen_ai.choice',
                  attributes: [kv('index', { intValue: 0 })],
                },
              ],
              links: [
                {
                  traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
                  spanId: 'bbbbbbbbbbbbbbbb',
                  attributes: [kv('link.kind', { stringValue: 'follows' })],
                },
              ],
              status: { code: 2, message: 'guardrail blocked the reply' },
            },
            {
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: '2222222222222222',
              parentSpanId: 'eee19b7ec3c1b174',
              flags: 0x101,
              name: 'chat claude',
              kind: 0,
              startTimeUnixNano: '1764442000001000000',
              endTimeUnixNano: '1764442000002000000',
              attributes: [],
              status: {},
            },
          ],
        },
      ],
    },
    {
      resource: { attributes: [kv('service.name', { stringValue: 'billing' })] },
      scopeSpans: [
        {
          scope: { name: 'other' },
          spans: [
            {
              traceId: 'cccccccccccccccccccccccccccccccc',
              spanId: '3333333333333333',
              flags: 1,
              name: 'root',
              kind: 1,
              startTimeUnixNano: '1',
              endTimeUnixNano: '2',
              status: { code: 1 },
            },
          ],
        },
      ],
    },
  ],
};

let downstream: OtlpCapture;
let telemetry: TelemetryExporters | undefined;
let receiver: OtlpReceiver | undefined;
beforeEach(async () => {
  downstream = await startOtlpCapture();
});
afterEach(async () => {
  await receiver?.shutdown();
  await telemetry?.shutdown();
  await downstream.close();
  receiver = undefined;
  telemetry = undefined;
});

function forwardingTelemetry(): TelemetryExporters {
  telemetry = createTelemetryExporters(
    telemetryConfig({ otlpEndpoint: downstream.url, traces: ['otlphttp'], forward: true }),
    { logger: silentLogger },
  );
  return telemetry;
}

describe('forwarding received spans', () => {
  it(
    'sends every span downstream as the receiver decoded it: ids, parent, flags, kind, times, attributes, ' +
      'events, links, status, resource, scope',
    async () => {
      const received = decodeTraceRequest(Buffer.from(JSON.stringify(REQUEST)), 'json');
      expect(received.rejectedSpans).toBe(0);
      expect(received.spans).toHaveLength(3);
      const t = forwardingTelemetry();
      t.forwarder!.forward(received.spans);
      await t.flush();
      // The one difference: the OpenTelemetry JS exporters always say whether the parent is remote
      // (flag bit 8), so a span that did not say gains "not remote", which is what it meant.
      expect(downstream.spans).toEqual(received.spans.map((span) => ({ ...span, flags: span.flags | 0x100 })));
      expect(downstream.spans.map((span) => span.flags)).toEqual([0x301, 0x101, 0x101]);
      expect(t.forwarder!.stats).toMatchObject({ forwarded: 3, dropped: 0, failed: 0, queued: 0 });
    },
  );

  it('is off unless the traces pipeline says forward: true', async () => {
    telemetry = createTelemetryExporters(telemetryConfig({ otlpEndpoint: downstream.url, traces: ['otlphttp'] }), {
      logger: silentLogger,
    });
    expect(telemetry.forwarder).toBeUndefined();
  });

  it('forwards what the receiver accepted, once the next stage has stored it, and not a batch it refused', async () => {
    const t = forwardingTelemetry();
    const processor = new InMemorySpanConsumer();
    receiver = createOtlpReceiver(
      { host: '127.0.0.1', port: 0, maxRequestBodyBytes: 1 << 20 },
      createForwardingConsumer(processor, t.forwarder!),
      { logger: silentLogger },
    );
    await receiver.start();
    const { host, port } = receiver.address();

    // A real agent's spans over OTLP/protobuf.
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'support' }),
      spanProcessors: [
        new SimpleSpanProcessor({ exporter: new ProtoExporter({ url: `http://${host}:${port}/v1/traces` }) }),
      ],
    });
    const tracer = provider.getTracer('agent');
    const agent = tracer.startSpan('invoke_agent support-agent', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'support-agent' },
    });
    const chat = tracer.startSpan(
      'chat claude',
      { attributes: { 'gen_ai.usage.input_tokens': 10 } },
      trace.setSpan(otelContext.active(), agent),
    );
    chat.end();
    agent.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
    agent.end();
    await provider.forceFlush();
    await pollUntil(() => (processor.batches.flat().length === 2 ? true : undefined), { what: 'the stored spans' });
    await t.flush();
    expect(downstream.spans).toEqual(processor.batches.flat());
    expect(downstream.spans.map((span) => span.name).sort()).toEqual(['chat claude', 'invoke_agent support-agent']);

    // The next stage refuses a batch (the sender will retry it): nothing is forwarded.
    processor.failNext(new BackpressureError('saturated', { retryAfterSeconds: 1 }));
    const refused = await fetch(`http://${host}:${port}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(REQUEST),
    });
    expect(refused.status).toBe(429);
    await t.flush();
    expect(downstream.spans).toHaveLength(2);
    await provider.shutdown();
  });

  it('drops and counts spans beyond its queue bound instead of holding them, and counts refused exports', async () => {
    const received = decodeTraceRequest(Buffer.from(JSON.stringify(REQUEST)), 'json').spans;
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (line: string) => warnings.push(line) };
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    const forwarder = createSpanForwarder({
      exporter: new OTLPTraceExporter({ url: `${downstream.url}/v1/traces` }),
      logger,
      maxQueuedSpans: 4,
      delayMs: 10_000,
    });
    forwarder.forward(received);
    forwarder.forward(received);
    expect(forwarder.stats).toMatchObject({ queued: 3, dropped: 3 });
    expect(warnings[0]).toContain('3 received spans were not forwarded');
    downstream.respondWith(400);
    await forwarder.forceFlush();
    expect(forwarder.stats).toMatchObject({ queued: 0, failed: 3, forwarded: 0 });
    downstream.respondWith(200);
    forwarder.forward(received);
    await forwarder.shutdown();
    expect(forwarder.stats.forwarded).toBe(3);
    forwarder.forward(received);
    expect(forwarder.stats.queued).toBe(0);
  });
});

describe('hrTimeOf', () => {
  it('splits Unix nanoseconds into seconds and nanoseconds without rounding', () => {
    // Past 2^53: the double nearest these nanoseconds, as the decoder would produce it.
    const nanos = Number(1_764_442_000_005_123_456n);
    const [seconds, rest] = hrTimeOf(nanos);
    expect(seconds * 1e9 + rest).toBe(nanos);
    expect(hrTimeOf(2)).toEqual([0, 2]);
  });
});
