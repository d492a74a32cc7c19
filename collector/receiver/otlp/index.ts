/** The OTLP/HTTP trace receiver's public surface (see README.md). */
export { createOtlpReceiver, type OtlpReceiver } from './otlp-receiver.ts';
export {
  DEFAULT_MAX_IN_FLIGHT_BYTES,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type OtlpReceiverConfig,
  type OtlpReceiverHooks,
} from './config.ts';
export {
  decodeTraceRequest,
  receiveTraceRequest,
  type DecodedTraceRequest,
  type OtlpFormat,
  type ReceivedTraceRequest,
} from './decode.ts';
export { encodeExportResponse, encodeStatus, RpcCode, type PartialSuccess, type RpcStatus } from './encode-response.ts';
export { OtlpDecodeError, ReceiverStartError } from './errors.ts';
export { TRACES_PATH } from './export-handler.ts';
