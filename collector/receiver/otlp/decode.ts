/**
 * The receiver's decode step. `receiveTraceRequest` is what the receiver does with a body: an
 * OTLP/protobuf body is checked and cut by trace, not decoded (the stages decode what they need of
 * it, `collector/model/span-batch.ts`); an OTLP/JSON body is decoded. `decodeTraceRequest`
 * decodes a body in full into spans (tests, the ingest benchmark's decode-only baseline). Both
 * report what was refused span by span (partial success), the same way for the same body; a body
 * that cannot be decoded at all throws OtlpDecodeError.
 */
import type { BufferPool } from '../../model/buffer-pool.ts';
import type { SpanData } from '../../model/span.ts';
import { spanBatchOf, type SpanBatch } from '../../model/span-batch.ts';
import { createSpanRejections, type SpanRejections } from '../../model/span-rejections.ts';
import { decodeProtobufRequest } from '../../model/otlp-protobuf/decode-request.ts';
import { createKeyMatcher, type KeyMatcher } from '../../model/otlp-protobuf/key-matcher.ts';
import { receivedBatch } from '../../model/otlp-protobuf/received-batch.ts';
import { scanProtobufRequest } from '../../model/otlp-protobuf/scan-request.ts';
import { decodeJsonRequest } from './decode-json.ts';

export type OtlpFormat = 'protobuf' | 'json';

export interface DecodedTraceRequest {
  /** The valid spans, in request order. */
  spans: SpanData[];
  /** Spans refused one by one (bad ids); the rest of the batch is still accepted. */
  rejectedSpans: number;
  /** Names the first problems; also set (with rejectedSpans 0) for a warning. */
  rejectionMessage?: string;
}

export interface ReceivedTraceRequest {
  /** The valid spans, as the pipeline passes them on. */
  batch: SpanBatch;
  rejectedSpans: number;
  rejectionMessage?: string;
}

export function decodeTraceRequest(body: Uint8Array, format: OtlpFormat): DecodedTraceRequest {
  const rejections = createSpanRejections();
  const spans = format === 'protobuf' ? decodeProtobufRequest(body, rejections) : decodeJsonRequest(body, rejections);
  return { spans, ...rejected(rejections) };
}

const NO_HEAD_ATTRIBUTES = createKeyMatcher(new Set());

/**
 * Receives a body: its spans' heads carry the attributes `headAttributes` names
 * (`createKeyMatcher(next.headAttributes)`, made once per receiver); a protobuf body is cut by
 * trace into a buffer from `pool` when given (the receiver's).
 */
export function receiveTraceRequest(
  body: Uint8Array,
  format: OtlpFormat,
  headAttributes: KeyMatcher = NO_HEAD_ATTRIBUTES,
  pool?: BufferPool,
): ReceivedTraceRequest {
  const rejections = createSpanRejections();
  const batch =
    format === 'protobuf'
      ? receivedBatch(scanProtobufRequest(body, headAttributes, rejections), pool)
      : spanBatchOf(decodeJsonRequest(body, rejections));
  return { batch, ...rejected(rejections) };
}

function rejected(rejections: SpanRejections): { rejectedSpans: number; rejectionMessage?: string } {
  const rejectionMessage = rejections.message();
  return rejectionMessage === undefined
    ? { rejectedSpans: 0 }
    : { rejectedSpans: rejections.count(), rejectionMessage };
}
