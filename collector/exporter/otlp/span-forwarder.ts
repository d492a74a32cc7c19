/**
 * Forwarding (`service.pipelines.traces.forward: true`): the received spans go on, as they came
 * in, to the traces pipeline's OTLP/HTTP exporter, so the collector can sit inline in front of a
 * tracing backend.
 *
 * Forwarding never slows ingest or fails it: spans are queued (bounded; beyond the bound they are
 * dropped and counted, with a log line that names the knob) and exported in batches, one export
 * at a time, in the background. The exporter retries what the backend asks to be retried.
 */
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from '../../logger.ts';
import type { SpanData } from '../../model/span.ts';
import { createReadableSpanAdapter } from './readable-span.ts';

export const DEFAULT_MAX_QUEUED_SPANS = 65_536;
export const DEFAULT_MAX_BATCH_SPANS = 2_048;
export const DEFAULT_FORWARD_DELAY_MS = 200;
/** At most one log line this often about dropped or failed forwards. */
const LOG_INTERVAL_MS = 60_000;

export interface SpanForwarderStats {
  forwarded: number;
  /** Dropped because the queue was full. */
  dropped: number;
  /** In exports the backend refused or that failed after retries. */
  failed: number;
  queued: number;
}

export interface SpanForwarder {
  /** Queues received spans for forwarding; never throws, never waits. */
  forward(spans: readonly SpanData[]): void;
  readonly stats: SpanForwarderStats;
  /** Exports everything queued now. */
  forceFlush(): Promise<void>;
  /** Exports what is queued, then stops. Safe twice. */
  shutdown(): Promise<void>;
}

export interface SpanForwarderOptions {
  exporter: SpanExporter;
  logger: Logger;
  /** The exporter's YAML path, which starts each log line (default `exporters::otlphttp`). */
  where?: string;
  /** Called once per failed export (the `evalon.exporter.failures` counter). */
  onFailure?: () => void;
  maxQueuedSpans?: number;
  maxBatchSpans?: number;
  delayMs?: number;
}

export function createSpanForwarder(options: SpanForwarderOptions): SpanForwarder {
  const { exporter, logger } = options;
  const maxQueued = options.maxQueuedSpans ?? DEFAULT_MAX_QUEUED_SPANS;
  const maxBatch = options.maxBatchSpans ?? DEFAULT_MAX_BATCH_SPANS;
  const delayMs = options.delayMs ?? DEFAULT_FORWARD_DELAY_MS;
  const where = options.where ?? 'exporters::otlphttp';
  const adapt = createReadableSpanAdapter();
  const stats: SpanForwarderStats = { forwarded: 0, dropped: 0, failed: 0, queued: 0 };
  let queue: ReadableSpan[] = [];
  let timer: NodeJS.Timeout | undefined;
  let exporting: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;
  let lastLog = 0;

  function complain(message: string): void {
    const now = Date.now();
    if (now - lastLog < LOG_INTERVAL_MS) return;
    lastLog = now;
    logger.warn(message);
  }

  function schedule(): void {
    if (timer || exporting || queue.length === 0) return;
    if (queue.length >= maxBatch) {
      void drain();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      void drain();
    }, delayMs);
    timer.unref();
  }

  /** Exports batches until the queue is empty; one export at a time. */
  function drain(): Promise<void> {
    exporting ??= (async () => {
      clearTimeout(timer);
      timer = undefined;
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        stats.queued = queue.length;
        const result = await new Promise<{ code: ExportResultCode; error?: Error }>((resolve) =>
          exporter.export(batch, resolve),
        );
        if (result.code === ExportResultCode.SUCCESS) stats.forwarded += batch.length;
        else {
          stats.failed += batch.length;
          options.onFailure?.();
          complain(
            `${where}: forwarding ${batch.length} spans failed: ` +
              `${result.error?.message ?? 'unknown error'} (${stats.failed} spans not forwarded so far)`,
          );
        }
      }
    })().finally(() => {
      exporting = undefined;
      schedule();
    });
    return exporting;
  }

  return {
    stats,
    forward(spans) {
      if (stopped || spans.length === 0) return;
      if (queue.length + spans.length > maxQueued) {
        stats.dropped += spans.length;
        complain(
          `${where}: ${queue.length} spans are waiting to be ` +
            `forwarded; ${spans.length} received spans were not forwarded ` +
            `(${stats.dropped} so far; the backend is slower than ingest or unreachable)`,
        );
        return;
      }
      for (const span of spans) queue.push(adapt(span));
      stats.queued = queue.length;
      schedule();
    },
    async forceFlush() {
      await exporting;
      await drain();
    },
    shutdown() {
      stopped ??= (async () => {
        await exporting;
        await drain();
        await exporter.shutdown();
      })();
      return stopped;
    },
  };
}

/** Several exporters' forwarders as one: each gets every span; the stats are their sums. */
export function combineForwarders(forwarders: readonly SpanForwarder[]): SpanForwarder | undefined {
  if (forwarders.length <= 1) return forwarders[0];
  const sum = (key: keyof SpanForwarderStats) => forwarders.reduce((total, one) => total + one.stats[key], 0);
  return {
    forward(spans) {
      for (const forwarder of forwarders) forwarder.forward(spans);
    },
    get stats() {
      return { forwarded: sum('forwarded'), dropped: sum('dropped'), failed: sum('failed'), queued: sum('queued') };
    },
    async forceFlush() {
      await Promise.all(forwarders.map((forwarder) => forwarder.forceFlush()));
    },
    async shutdown() {
      await Promise.all(forwarders.map((forwarder) => forwarder.shutdown()));
    },
  };
}
