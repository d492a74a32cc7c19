/**
 * The OTLP TraceService, written by hand for grpc-js: one unary method, `Export`. The request is
 * passed through as raw bytes (the receiver decodes them with the same protobuf decoder as
 * OTLP/HTTP, after its cheap checks); the response is encoded by the same encoder as OTLP/HTTP's
 * protobuf answers. No .proto files, no proto-loader.
 */
import type { MethodDefinition, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { encodeExportResponse, type PartialSuccess } from '../encode-response.ts';

export const TRACE_SERVICE_NAME = 'opentelemetry.proto.collector.trace.v1.TraceService';
export const TRACE_EXPORT_PATH = `/${TRACE_SERVICE_NAME}/Export`;

/** ExportTraceServiceResponse: `partial_success` (field 1) only when spans were refused. */
export interface ExportTraceServiceResponse {
  partialSuccess?: PartialSuccess;
}

const passThrough = (bytes: Buffer): Buffer => bytes;

const exportMethod: MethodDefinition<Buffer, ExportTraceServiceResponse> = {
  path: TRACE_EXPORT_PATH,
  originalName: 'Export',
  requestStream: false,
  responseStream: false,
  requestSerialize: passThrough,
  requestDeserialize: passThrough,
  responseSerialize: (response) => toBuffer(encodeExportResponse('protobuf', response.partialSuccess)),
  // Only a client reads responses; the server never calls this. Tests decode the bytes themselves.
  responseDeserialize: () => ({}),
};

export const traceServiceDefinition: ServiceDefinition<UntypedServiceImplementation> = { Export: exportMethod };

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
