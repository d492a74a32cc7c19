import { diag, DiagLogLevel } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { InMemorySpanExporter, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createBoundedSpanProcessor,
  estimateSpanBytes,
  type QueueLimits,
} from '../../../src/instrumentation/bounded-span-processor.ts';

const limits = (overrides: Partial<QueueLimits> = {}): QueueLimits => ({
  maxQueueSize: 10,
  maxQueueBytes: 1024 * 1024,
  maxExportBatchSize: 5,
  scheduledDelayMillis: 60_000,
  exportTimeoutMillis: 60_000,
  ...overrides,
});

/** An exporter whose collector never answers: exports stay pending. */
class HangingSpanExporter implements SpanExporter {
  received = 0;
  export(spans: ReadableSpan[], _done: (result: ExportResult) => void): void {
    this.received += spans.length;
  }
  shutdown = async () => {};
}

/** An exporter whose collector refuses every export. */
class FailingSpanExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    done({ code: ExportResultCode.FAILED, error: new Error('connect ECONNREFUSED') });
  }
  shutdown = async () => {};
}

let providers: TracerProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.map((provider) => provider.shutdown().catch(() => {})));
  providers = [];
});

function tracerWith(exporter: SpanExporter, queue: QueueLimits) {
  const processor = createBoundedSpanProcessor(exporter, queue);
  const provider = new TracerProvider({ spanProcessors: [processor] });
  providers.push(provider);
  return { processor, tracer: provider.getTracer('test') };
}

describe('the bounded span processor', () => {
  it('exports through the batch processor and counts exported spans', async () => {
    const exporter = new InMemorySpanExporter();
    const { processor, tracer } = tracerWith(exporter, limits());
    for (let i = 0; i < 7; i++) tracer.startSpan(`s${i}`).end();
    expect(processor.stats().queuedSpans).toBe(2); // 5 left at once as a full batch
    await processor.forceFlush();
    expect(exporter.getFinishedSpans()).toHaveLength(7);
    expect(processor.stats()).toEqual({
      queuedSpans: 0,
      queuedBytes: 0,
      exportedSpans: 7,
      failedSpans: 0,
      droppedSpans: 0,
    });
  });

  it('drops and counts spans beyond maxQueueSize while the collector does not answer, warning once', () => {
    const warnings: string[] = [];
    const log = (message: string) => void warnings.push(message);
    diag.setLogger({ error: log, warn: log, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
    const exporter = new HangingSpanExporter();
    const { processor, tracer } = tracerWith(exporter, limits({ exportTimeoutMillis: 100 }));
    for (let i = 0; i < 1000; i++) tracer.startSpan(`s${i}`).end();
    const stats = processor.stats();
    expect(stats.queuedSpans).toBeLessThanOrEqual(10);
    expect(exporter.received).toBe(5); // one batch in flight, stuck
    expect(stats.queuedSpans + exporter.received + stats.droppedSpans).toBe(1000);
    expect(stats.droppedSpans).toBeGreaterThanOrEqual(985);
    diag.disable();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/span export queue full .* raise maxQueueSize \/ maxQueueBytes/);
  });

  it('bounds the queue in bytes too: spans with large content are dropped first', () => {
    const exporter = new HangingSpanExporter();
    const { processor, tracer } = tracerWith(
      exporter,
      limits({ maxQueueSize: 1000, maxQueueBytes: 100_000, maxExportBatchSize: 1000, exportTimeoutMillis: 100 }),
    );
    const content = 'x'.repeat(30_000);
    for (let i = 0; i < 20; i++) tracer.startSpan('chat', { attributes: { 'gen_ai.input.messages': content } }).end();
    const stats = processor.stats();
    expect(stats.queuedBytes).toBeLessThanOrEqual(100_000);
    expect(stats.queuedSpans).toBe(3);
    expect(stats.droppedSpans).toBe(17);
  });

  it('counts spans the exporter failed to deliver, and frees their room', async () => {
    const { processor, tracer } = tracerWith(new FailingSpanExporter(), limits());
    for (let i = 0; i < 8; i++) tracer.startSpan(`s${i}`).end();
    await processor.forceFlush().catch(() => {});
    expect(processor.stats()).toMatchObject({ queuedSpans: 0, failedSpans: 8, exportedSpans: 0, droppedSpans: 0 });
  });

  it('counts an exporter that throws as a failure', async () => {
    const throwing: SpanExporter = {
      export() {
        throw new Error('serializer bug');
      },
      shutdown: async () => {},
    };
    const { processor, tracer } = tracerWith(throwing, limits());
    tracer.startSpan('s').end();
    await processor.forceFlush().catch(() => {});
    expect(processor.stats()).toMatchObject({ failedSpans: 1, queuedSpans: 0 });
  });

  it('ignores unsampled spans and spans ended after shutdown', async () => {
    const exporter = new InMemorySpanExporter();
    const processor = createBoundedSpanProcessor(exporter, limits());
    const provider = new TracerProvider({
      spanProcessors: [processor],
      sampler: { shouldSample: () => ({ decision: 1 }), toString: () => 'record-only' },
    });
    providers.push(provider);
    provider.getTracer('t').startSpan('not sampled').end();
    expect(processor.stats().queuedSpans).toBe(0);
    await processor.shutdown();
    await processor.shutdown();
    expect(processor.stats()).toMatchObject({ queuedSpans: 0, droppedSpans: 0 });
  });

  it('estimates a span by its names and attribute values', async () => {
    const exporter = new InMemorySpanExporter();
    const { processor, tracer } = tracerWith(exporter, limits());
    const span = tracer.startSpan('n', { attributes: { k: 'v'.repeat(1000), list: ['a', 'b'], n: 1 } });
    span.addEvent('e', { detail: 'd'.repeat(100) });
    span.end();
    await processor.forceFlush();
    const estimate = estimateSpanBytes(exporter.getFinishedSpans()[0]);
    expect(estimate).toBeGreaterThan(1100);
    expect(estimate).toBeLessThan(2000);
  });
});
