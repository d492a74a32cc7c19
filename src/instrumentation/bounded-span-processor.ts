/**
 * A batch span processor whose queue is bounded in spans AND in bytes, and which counts what it
 * drops, exports and fails to export. When the collector is down, spans wait in the queue while
 * the exporter retries; once the queue is full new spans are dropped (and counted), so the agent's
 * memory stays bounded whatever it does. The export itself runs off the request path, in the
 * OpenTelemetry `BatchSpanProcessor` this wraps.
 *
 * Why a wrapper: the SDK's processor bounds only the number of spans (a span with captured content
 * can weigh hundreds of kilobytes) and resets its drop counter whenever it logs it.
 */
import { diag, TraceFlags, type Context } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';

export interface QueueLimits {
  /** Spans waiting for export, at most (`OTEL_BSP_MAX_QUEUE_SIZE`). */
  maxQueueSize: number;
  /** Estimated bytes of the spans waiting for export, at most. */
  maxQueueBytes: number;
  /** Spans per export request (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`). */
  maxExportBatchSize: number;
  /** Delay between two scheduled exports (`OTEL_BSP_SCHEDULE_DELAY`). */
  scheduledDelayMillis: number;
  /** Time an export may take before it counts as failed (`OTEL_BSP_EXPORT_TIMEOUT`). */
  exportTimeoutMillis: number;
}

export interface ExportStats {
  /** Spans waiting for export now. */
  queuedSpans: number;
  /** Their estimated size in bytes. */
  queuedBytes: number;
  /** Spans the collector accepted. */
  exportedSpans: number;
  /** Spans handed to the exporter that it could not deliver (collector down, rejected). */
  failedSpans: number;
  /** Spans dropped because the queue was full. */
  droppedSpans: number;
}

export interface BoundedSpanProcessor extends SpanProcessor {
  stats(): ExportStats;
}

export function createBoundedSpanProcessor(exporter: SpanExporter, limits: QueueLimits): BoundedSpanProcessor {
  const stats: ExportStats = { queuedSpans: 0, queuedBytes: 0, exportedSpans: 0, failedSpans: 0, droppedSpans: 0 };
  let dropping = false;
  let shutDown = false;

  // Spans leave the queue when the batch processor hands them to the exporter: that is where
  // the budget is released, so the count never drifts whatever the export's outcome.
  const countingExporter: SpanExporter = {
    export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
      release(spans);
      const settle = (result: ExportResult) => {
        if (result.code === ExportResultCode.SUCCESS) stats.exportedSpans += spans.length;
        else stats.failedSpans += spans.length;
        resultCallback(result);
      };
      try {
        exporter.export(spans, settle);
      } catch (error) {
        settle({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      }
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };

  const batch = new BatchSpanProcessor({
    exporter: countingExporter,
    // Never smaller than ours: this processor decides what is dropped, and counts it.
    maxQueueSize: limits.maxQueueSize + 1,
    maxExportBatchSize: Math.min(limits.maxExportBatchSize, limits.maxQueueSize),
    scheduledDelayMillis: limits.scheduledDelayMillis,
    exportTimeoutMillis: limits.exportTimeoutMillis,
  });

  function release(spans: ReadableSpan[]): void {
    let bytes = 0;
    for (const span of spans) bytes += estimateSpanBytes(span);
    stats.queuedSpans = Math.max(0, stats.queuedSpans - spans.length);
    stats.queuedBytes = Math.max(0, stats.queuedBytes - bytes);
  }

  return {
    onStart(span: Span, parentContext: Context): void {
      batch.onStart(span, parentContext);
    },
    onEnd(span: ReadableSpan): void {
      if (shutDown || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
      const bytes = estimateSpanBytes(span);
      if (stats.queuedSpans >= limits.maxQueueSize || stats.queuedBytes + bytes > limits.maxQueueBytes) {
        stats.droppedSpans++;
        if (!dropping) {
          dropping = true;
          diag.warn(
            `evalon: span export queue full (${stats.queuedSpans} ` +
              `spans, ~${stats.queuedBytes} bytes); dropping spans ` +
              '(is the collector reachable? raise maxQueueSize / maxQueueBytes to buffer more)',
          );
        }
        return;
      }
      dropping = false;
      stats.queuedSpans++;
      stats.queuedBytes += bytes;
      batch.onEnd(span);
    },
    forceFlush: () => batch.forceFlush(),
    shutdown(): Promise<void> {
      shutDown = true;
      return batch.shutdown();
    },
    stats: () => ({ ...stats }),
  };
}

/**
 * About how much heap a finished span holds: a fixed overhead plus its names and attribute values
 * (string lengths; JS strings take one or two bytes a character). Cheap enough for every span.
 */
export function estimateSpanBytes(span: ReadableSpan): number {
  let bytes = SPAN_OVERHEAD_BYTES + span.name.length + attributesBytes(span.attributes);
  for (const event of span.events) {
    bytes += EVENT_OVERHEAD_BYTES + event.name.length + (event.attributes ? attributesBytes(event.attributes) : 0);
  }
  return bytes;
}

const SPAN_OVERHEAD_BYTES = 512;
const EVENT_OVERHEAD_BYTES = 64;

function attributesBytes(attributes: Record<string, unknown>): number {
  let bytes = 0;
  for (const key in attributes) bytes += key.length + valueBytes(attributes[key]);
  return bytes;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) {
    let bytes = 0;
    for (const item of value) bytes += typeof item === 'string' ? item.length : 8;
    return bytes;
  }
  return 8;
}
