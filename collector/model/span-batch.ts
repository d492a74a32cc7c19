/**
 * What the pipeline's stages pass each other: the spans of one received request. Decoding every
 * span in full is what a stage asks for only when it needs the content (`spans()`); deciding
 * interactions needs only the spans' heads (`heads()`), and storing them needs only their bytes
 * as received (`byTrace`). A request received as OTLP/protobuf is never re-encoded.
 */
import type { SpanData, SpanHead } from './span.ts';
import type { TraceRequests } from './otlp-protobuf/trace-requests.ts';

export interface SpanBatch {
  readonly spanCount: number;
  /** Every span decoded in full, in request order (decoded on the first call, then kept). */
  spans(): SpanData[];
  /**
   * Every span's head, in request order: ids, flags, name, scope, and the attributes the receiving
   * stage asked for (`SpanConsumer.headAttributes`); all of them when the spans came decoded.
   */
  readonly heads: readonly SpanHead[];
  /**
   * The stage that reads the heads has taken what it needs of them: the batch lets go of them, so
   * that they are collected young while the batch waits to be stored (reading `heads` afterwards
   * is a fault and throws).
   */
  dropHeads(): void;
  /**
   * The spans as received, one OTLP/protobuf request per trace; undefined when the batch was not
   * received as OTLP/protobuf (then its spans are stored from `spans()`).
   */
  readonly byTrace: TraceRequests | undefined;
  /**
   * The receiver is done with the batch (every stage has consumed it, stored or not): what only it
   * still uses is freed now rather than at a garbage collection. Stages that keep the spans' bytes
   * longer retain them (`retainTraceRequests`).
   */
  release(): void;
}

/** A batch of spans already decoded (OTLP/JSON, replayed spans, tests). */
export function spanBatchOf(spans: SpanData[]): SpanBatch {
  return {
    spanCount: spans.length,
    spans: () => spans,
    heads: spans,
    // The spans themselves: kept for `spans()` anyway.
    dropHeads() {},
    byTrace: undefined,
    release() {},
  };
}
