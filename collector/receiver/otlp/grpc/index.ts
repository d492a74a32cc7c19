/** The OTLP/gRPC trace receiver's public surface (see README.md). */
export { createOtlpGrpcReceiver, type OtlpGrpcReceiver } from './otlp-grpc-receiver.ts';
export { DEFAULT_MAX_RECV_MSG_BYTES, type GrpcReceiverConfig } from './config.ts';
export {
  TRACE_EXPORT_PATH,
  TRACE_SERVICE_NAME,
  traceServiceDefinition,
  type ExportTraceServiceResponse,
} from './trace-service.ts';
