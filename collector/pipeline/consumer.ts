/**
 * The one consumer contract every pipeline stage implements (as the OpenTelemetry Collector's
 * `ConsumeTraces`): a stage is given `next`, never builds it. `consume` resolves once the batch is
 * safely handed on (for the interaction processor: durably stored), and rejects with a
 * `BackpressureError` when the stage is saturated and the sender should retry later. A batch is
 * decoded only as far as a stage asks (`collector/model/span-batch.ts`).
 */
import type { SpanBatch } from '../model/span-batch.ts';

export interface SpanConsumer {
  consume(batch: SpanBatch): Promise<void>;
  /**
   * The attributes this stage reads from spans' heads (`SpanBatch.heads`) before anything else:
   * a receiver decodes those while it checks a request, and the rest of a span only on demand.
   */
  readonly headAttributes?: ReadonlySet<string>;
}

export interface Lifecycle {
  start(): Promise<void>;
  /** Safe without start, safe twice. */
  shutdown(): Promise<void>;
}

/** The pipeline is saturated: the receiver answers 429/503 with `Retry-After`. */
export class BackpressureError extends Error {
  readonly retryAfterSeconds: number;
  /** 429 when the sender is going too fast, 503 when the collector cannot take data at all. */
  readonly status: 429 | 503;
  constructor(message: string, options: { retryAfterSeconds: number; status?: 429 | 503; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'BackpressureError';
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.status = options.status ?? 429;
  }
}
