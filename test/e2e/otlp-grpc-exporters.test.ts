/**
 * Spans from the official OpenTelemetry JS OTLP/gRPC exporter (the same protocol as the
 * OpenTelemetry Collector's `loadbalancing` exporter), with and without gzip, become interaction
 * records; a refused span comes back to the exporter as partial success; an acknowledged Export
 * means the spans are in the ledger.
 */
import { context, diag, DiagLogLevel, trace, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCollector, testConfigYaml, type TestCollector } from '../helpers/collector.ts';
import { encodeOtlpProtobuf } from '../fixtures/otlp/encode-otlp-protobuf.ts';
import { createRawTraceClient } from '../helpers/grpc-client.ts';

/** The test collector's config with the gRPC receiver on an ephemeral loopback port. */
function grpcConfigYaml(dir: string): string {
  return testConfigYaml(dir).replace('      http:\n', '      grpc:\n        endpoint: 127.0.0.1:0\n      http:\n');
}

let collector: TestCollector;
let grpcUrl: string;
beforeAll(async () => {
  collector = await startTestCollector({ yaml: grpcConfigYaml });
  const bound = collector.collector.otlpGrpcAddress!;
  grpcUrl = `http://${bound.host}:${bound.port}`;
});
afterAll(async () => {
  await collector?.close();
});

/** One agent invocation: invoke_agent → chat → execute_tool → chat. Returns its interaction id. */
function runAgent(tracer: Tracer, question: string, answer: string): string {
  const agent = tracer.startSpan('invoke_agent support-agent', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.conversation.id': 'conv-grpc',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
    },
  });
  const inAgent = trace.setSpan(context.active(), agent);
  tracer
    .startSpan(
      'chat claude',
      {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.usage.input_tokens': 10,
          'gen_ai.usage.output_tokens': 5,
        },
      },
      inAgent,
    )
    .end();
  tracer
    .startSpan(
      'execute_tool lookup_order',
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'lookup_order',
          'gen_ai.tool.call.id': 'call_1',
        },
      },
      inAgent,
    )
    .end();
  tracer
    .startSpan(
      'chat claude',
      {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.usage.input_tokens': 20,
          'gen_ai.usage.output_tokens': 7,
        },
      },
      inAgent,
    )
    .end();
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]),
  );
  agent.end();
  return `${agent.spanContext().traceId}-${agent.spanContext().spanId}`;
}

describe('spans from the official OTLP/gRPC exporter', () => {
  for (const compression of ['none', 'gzip'] as const) {
    for (const processorKind of ['batch', 'simple'] as const) {
      it(`become one interaction record (compression ${compression}, ${processorKind} span processor)`, async () => {
        const exporter = new OTLPTraceExporter({ url: grpcUrl, compression: compression as never });
        const processor =
          processorKind === 'batch' ? new BatchSpanProcessor({ exporter }) : new SimpleSpanProcessor({ exporter });
        const provider = new TracerProvider({
          resource: resourceFromAttributes({ 'service.name': 'support-service' }),
          spanProcessors: [processor],
        });
        const question = `Where is order A-17? (gRPC ${compression} ${processorKind})`;
        const interactionId = runAgent(provider.getTracer('test'), question, 'It has shipped.');
        await provider.forceFlush();
        const record = await collector.waitForInteraction((r) => r.interactionId === interactionId);
        expect(record).toMatchObject({
          agentId: 'support-agent',
          conversationId: 'conv-grpc',
          failed: false,
          finalResponseText: 'It has shipped.',
          completion: 'structural',
          usage: { inputTokens: 30, outputTokens: 12 },
        });
        expect(record.input[0]).toMatchObject({ role: 'user', parts: [{ type: 'text', content: question }] });
        expect(record.toolCalls).toEqual([{ name: 'lookup_order', callId: 'call_1' }]);
        await provider.shutdown();
      });
    }
  }

  it('reports a refused span to the exporter as partial success and stores the others', async () => {
    const warnings: string[] = [];
    diag.setLogger(
      {
        ...silentDiag,
        warn: (message: string, ...args: unknown[]) => void warnings.push([message, ...args].join(' ')),
      },
      DiagLogLevel.WARN,
    );
    try {
      const provider = new TracerProvider({ spanProcessors: [] });
      const tracer = provider.getTracer('test');
      const good = tracer.startSpan('good span') as unknown as ReadableSpan & { end(): void };
      good.end();
      const bad = withSpanId(good, '0000000000000000');
      const exporter = new OTLPTraceExporter({ url: grpcUrl });
      const result = await new Promise<ExportResult>((resolve) => exporter.export([good, bad], resolve));
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      expect(warnings).toEqual([
        expect.stringMatching(
          /Received Partial Success response: .*"rejectedSpans":"?1"?.*spanId must not be all zeros/,
        ),
      ]);
      const stored = await collector.collector.store.loadTraceSpans(good.spanContext().traceId);
      expect(stored.map((s) => s.spanId)).toEqual([good.spanContext().spanId]);
      await exporter.shutdown();
    } finally {
      diag.disable();
    }
  });

  it('acknowledges an Export only once its spans are in the ledger', async () => {
    const client = createRawTraceClient(collector.collector.otlpGrpcAddress!.port);
    try {
      for (let round = 0; round < 20; round++) {
        const traceId = randomBytes(16).toString('hex');
        const spans = Array.from({ length: 5 }, (_, i) => ({
          traceId,
          spanId: randomBytes(8).toString('hex'),
          name: `plain span ${i}`,
          kind: 1,
          startTimeUnixNano: '1700000000000000000',
          endTimeUnixNano: '1700000000001000000',
        }));
        const result = await client.export(encodeOtlpProtobuf({ resourceSpans: [{ scopeSpans: [{ spans }] }] }));
        expect(result.code).toBe(GrpcStatus.OK);
        // Read straight after the acknowledgement: no wait, no poll.
        const stored = await collector.collector.store.loadTraceSpans(traceId);
        expect(stored.map((s) => s.spanId).sort()).toEqual(spans.map((s) => s.spanId).sort());
      }
    } finally {
      client.close();
    }
  });
});

describe('the gRPC receiver in the collector', () => {
  it('stops the collector from starting when its endpoint is taken, naming the YAML key', async () => {
    const port = collector.collector.otlpGrpcAddress!.port;
    const dir = mkdtempSync(join(tmpdir(), 'evalon-grpc-taken-'));
    try {
      const yaml = (d: string) =>
        grpcConfigYaml(d).replace('endpoint: 127.0.0.1:0\n      http:', `endpoint: 127.0.0.1:${port}\n      http:`);
      await expect(startTestCollector({ yaml, dir })).rejects.toThrow(
        new RegExp(`^receivers::otlp::protocols::grpc::endpoint: cannot listen on 127.0.0.1:${port} \\(.*EADDRINUSE`),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops listening when the collector shuts down', async () => {
    const other = await startTestCollector({ yaml: grpcConfigYaml });
    const client = createRawTraceClient(other.collector.otlpGrpcAddress!.port);
    try {
      expect((await client.export(new Uint8Array(0))).code).toBe(GrpcStatus.OK);
      await other.close();
      expect((await client.export(new Uint8Array(0))).code).toBe(GrpcStatus.UNAVAILABLE);
    } finally {
      client.close();
    }
  });
});

const silentDiag = { error() {}, warn() {}, info() {}, debug() {}, verbose() {} };

/** The same ended span under another span id: what a buggy SDK would send (real ones never do). */
function withSpanId(span: ReadableSpan, spanId: string): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => ({ ...span.spanContext(), spanId }),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: span.attributes,
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
