/**
 * `receivers.otlp`: OTLP over HTTP (`/v1/traces`, protobuf and JSON, gzip) and, when the `grpc`
 * key is written, OTLP over gRPC (`TraceService/Export`). `http` always runs (`protocols` may be
 * left out to take its defaults); `grpc` runs only when present, as in the OpenTelemetry Collector.
 */
import type { OtlpGrpcReceiverConfig, OtlpHttpReceiverConfig } from '../evalon-config.ts';
import { section } from '../schema-kit.ts';
import { count, listenEndpoint, size, text } from '../values.ts';

export const DEFAULT_OTLP_HTTP_HOST = '127.0.0.1';
export const DEFAULT_OTLP_HTTP_PORT = 4318;
/** The OTLP specification's recommended limit. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 64 * 1024 * 1024;
export const DEFAULT_OTLP_GRPC_HOST = '127.0.0.1';
export const DEFAULT_OTLP_GRPC_PORT = 4317;
/** The OpenTelemetry Collector's `max_recv_msg_size_mib` default (gRPC's own default, 4 MiB). */
export const DEFAULT_MAX_RECV_MSG_SIZE_MIB = 4;
const MIB = 1024 * 1024;

const httpSchema = section({
  endpoint: listenEndpoint().default({ host: DEFAULT_OTLP_HTTP_HOST, port: DEFAULT_OTLP_HTTP_PORT }),
  max_request_body_size: size().default(DEFAULT_MAX_REQUEST_BODY_BYTES),
  auth: section({ bearer_token: text().optional() }),
}).transform(
  (http): OtlpHttpReceiverConfig => ({
    ...http.endpoint,
    maxRequestBodyBytes: http.max_request_body_size,
    ...(http.auth.bearer_token !== undefined ? { bearerToken: http.auth.bearer_token } : {}),
  }),
);

/** `grpc:` with nothing after it (YAML null, not absent) enables gRPC with these defaults. */
const grpcSchema = section({
  endpoint: listenEndpoint().default({ host: DEFAULT_OTLP_GRPC_HOST, port: DEFAULT_OTLP_GRPC_PORT }),
  max_recv_msg_size_mib: count(1).default(DEFAULT_MAX_RECV_MSG_SIZE_MIB),
  auth: section({ bearer_token: text().optional() }),
}).transform(
  (grpc): OtlpGrpcReceiverConfig => ({
    ...grpc.endpoint,
    maxRecvMsgBytes: grpc.max_recv_msg_size_mib * MIB,
    ...(grpc.auth.bearer_token !== undefined ? { bearerToken: grpc.auth.bearer_token } : {}),
  }),
);

export const otlpReceiverSchema = section({
  protocols: section({ http: httpSchema, grpc: grpcSchema.optional() }),
}).transform((otlp) => ({
  http: otlp.protocols.http,
  ...(otlp.protocols.grpc !== undefined ? { grpc: otlp.protocols.grpc } : {}),
}));
