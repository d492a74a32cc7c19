/**
 * Response bodies of OTLP/HTTP, in the encoding of the request: ExportTraceServiceResponse
 * (empty on success, `partial_success` when spans were refused) and google.rpc.Status for
 * failures. protobufjs's Writer does the protobuf encoding; the messages are three fields each.
 */
import protobuf from 'protobufjs/minimal.js';
import type { OtlpFormat } from './decode.ts';

/** google.rpc.Code values the receiver uses (google/rpc/code.proto). */
export const RpcCode = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export interface PartialSuccess {
  rejectedSpans: number;
  errorMessage: string;
}

export interface RpcStatus {
  code: number;
  message: string;
  /** Sent as one google.rpc.BadRequest detail (what the OTLP specification suggests for 400 answers). */
  fieldViolation?: { field: string; description: string };
}

/** The OTLP specification caps a response body at 4 MiB; messages are kept far below that. */
const MAX_MESSAGE_CHARS = 8192;
const BAD_REQUEST_TYPE_URL = 'type.googleapis.com/google.rpc.BadRequest';
const EMPTY = Buffer.alloc(0);
const EMPTY_JSON = Buffer.from('{}');

/** Field tags: field number << 3 | wire type (0 varint, 2 length-delimited). */
const tag = (field: number, wireType: number): number => (field << 3) | wireType;

export function encodeExportResponse(format: OtlpFormat, partial?: PartialSuccess): Uint8Array {
  if (partial === undefined) return format === 'protobuf' ? EMPTY : EMPTY_JSON;
  const errorMessage = clip(partial.errorMessage);
  if (format === 'json') {
    // int64 travels as a decimal string in OTLP/JSON.
    const body = { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage } };
    return Buffer.from(JSON.stringify(body));
  }
  const writer = protobuf.Writer.create();
  writer.uint32(tag(1, 2)).fork();
  if (partial.rejectedSpans !== 0) writer.uint32(tag(1, 0)).int64(partial.rejectedSpans);
  if (errorMessage !== '') writer.uint32(tag(2, 2)).string(errorMessage);
  writer.ldelim();
  return writer.finish();
}

export function encodeStatus(format: OtlpFormat, status: RpcStatus): Uint8Array {
  const message = clip(status.message);
  const violation = status.fieldViolation;
  if (format === 'json') {
    const details =
      violation === undefined
        ? []
        : [
            {
              '@type': BAD_REQUEST_TYPE_URL,
              fieldViolations: [{ field: violation.field, description: clip(violation.description) }],
            },
          ];
    return Buffer.from(JSON.stringify({ code: status.code, message, details }));
  }
  const writer = protobuf.Writer.create();
  if (status.code !== 0) writer.uint32(tag(1, 0)).int32(status.code);
  if (message !== '') writer.uint32(tag(2, 2)).string(message);
  if (violation !== undefined) {
    // details: Any { type_url = 1; value = 2 } holding BadRequest { field_violations = 1 }.
    writer.uint32(tag(3, 2)).fork();
    writer.uint32(tag(1, 2)).string(BAD_REQUEST_TYPE_URL);
    writer.uint32(tag(2, 2)).fork();
    writer.uint32(tag(1, 2)).fork();
    writer.uint32(tag(1, 2)).string(violation.field);
    writer.uint32(tag(2, 2)).string(clip(violation.description));
    writer.ldelim().ldelim().ldelim();
  }
  return writer.finish();
}

function clip(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
}
