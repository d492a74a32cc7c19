/**
 * The `grpc-status-details-bin` trailer: a google.rpc.Status repeating the call's code and message
 * with one detail, so that clients that read details get the structured reason. RetryInfo tells
 * OTLP exporters when to retry an UNAVAILABLE answer (the OTLP specification's throttling signal; the
 * OpenTelemetry Collector's exporters honour it); BadRequest names the field of a malformed request.
 */
import { Metadata } from '@grpc/grpc-js';
import protobuf from 'protobufjs/minimal.js';
import { encodeStatus, type RpcStatus } from '../encode-response.ts';

const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
const RETRY_INFO_TYPE_URL = 'type.googleapis.com/google.rpc.RetryInfo';

/** Field tags: field number << 3 | wire type (0 varint, 2 length-delimited). */
const tag = (field: number, wireType: number): number => (field << 3) | wireType;

/** Trailers carrying the status with a google.rpc.BadRequest detail (built by the HTTP encoder). */
export function badRequestTrailers(status: RpcStatus): Metadata {
  return trailersWith(encodeStatus('protobuf', status));
}

/** Trailers carrying the status with a google.rpc.RetryInfo detail: retry after `retryAfterSeconds`. */
export function retryInfoTrailers(code: number, message: string, retryAfterSeconds: number): Metadata {
  const writer = protobuf.Writer.create();
  writer.uint32(tag(1, 0)).int32(code);
  writer.uint32(tag(2, 2)).string(message);
  // details: Any { type_url = 1; value = 2 } holding RetryInfo { retry_delay = 1: Duration { seconds = 1 } }.
  writer.uint32(tag(3, 2)).fork();
  writer.uint32(tag(1, 2)).string(RETRY_INFO_TYPE_URL);
  writer.uint32(tag(2, 2)).fork();
  writer.uint32(tag(1, 2)).fork();
  writer.uint32(tag(1, 0)).int64(Math.max(1, Math.ceil(retryAfterSeconds)));
  writer.ldelim().ldelim().ldelim();
  return trailersWith(writer.finish());
}

function trailersWith(statusBytes: Uint8Array): Metadata {
  const trailers = new Metadata();
  trailers.set(STATUS_DETAILS_KEY, Buffer.from(statusBytes.buffer, statusBytes.byteOffset, statusBytes.byteLength));
  return trailers;
}
