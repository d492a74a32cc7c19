/**
 * The receiver's decode step, also what the ingest benchmark calls: a request body in either OTLP
 * encoding becomes the spans to hand on, plus what was refused span by span (partial success).
 * A body that cannot be decoded at all throws OtlpDecodeError.
 */
import type { SpanData } from '../../model/span.ts';
import { decodeJsonRequest } from './decode-json.ts';
import { decodeProtobufRequest } from './decode-protobuf.ts';
import { createSpanRejections } from './span-rejections.ts';

export type OtlpFormat = 'protobuf' | 'json';

export interface DecodedTraceRequest {
  /** The valid spans, in request order. */
  spans: SpanData[];
  /** Spans refused one by one (bad ids); the rest of the batch is still accepted. */
  rejectedSpans: number;
  /** Names the first problems; also set (with rejectedSpans 0) for a warning. */
  rejectionMessage?: string;
}

export function decodeTraceRequest(body: Uint8Array, format: OtlpFormat): DecodedTraceRequest {
  const rejections = createSpanRejections();
  const spans = format === 'protobuf' ? decodeProtobufRequest(body, rejections) : decodeJsonRequest(body, rejections);
  const rejectionMessage = rejections.message();
  return rejectionMessage === undefined
    ? { spans, rejectedSpans: 0 }
    : { spans, rejectedSpans: rejections.count(), rejectionMessage };
}
