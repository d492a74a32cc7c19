/**
 * `receivers.otlp.protocols.grpc`: present only when the `grpc` key is written, as in the
 * OpenTelemetry Collector (`grpc:` with nothing after it turns gRPC on with these defaults).
 */
import { section } from '../../../config/schema-kit.ts';
import { count, listenEndpoint, text } from '../../../config/values.ts';
import { serverTlsSchema, type ServerTlsConfig } from '../../../security/tls-config.ts';
import type { ServerTlsOptions } from '../../../security/tls-files.ts';

export const DEFAULT_OTLP_GRPC_HOST = '127.0.0.1';
export const DEFAULT_OTLP_GRPC_PORT = 4317;
/** The OpenTelemetry Collector's `max_recv_msg_size_mib` default (gRPC's own default, 4 MiB). */
export const DEFAULT_MAX_RECV_MSG_SIZE_MIB = 4;
const MIB = 1024 * 1024;
/** `max_recv_msg_size_mib`'s default in bytes. */
export const DEFAULT_MAX_RECV_MSG_BYTES = DEFAULT_MAX_RECV_MSG_SIZE_MIB * MIB;

/** `receivers.otlp.protocols.grpc`, normalised. */
export interface OtlpGrpcReceiverConfig {
  /** Bind address (default 127.0.0.1). */
  host: string;
  /** 0 asks the OS for a free port; `address()` then reports it. */
  port: number;
  /**
   * `max_recv_msg_size_mib` in bytes. grpc-js enforces it on the message's declared length (before
   * buffering it) and again after gzip decompression: RESOURCE_EXHAUSTED.
   */
  maxRecvMsgBytes: number;
  /** `auth.bearer_token`: when set, calls need `authorization: Bearer <token>` (UNAUTHENTICATED). */
  bearerToken?: string;
  /** `tls`: serve gRPC over TLS (mutual TLS with `client_ca_file`). */
  tls?: ServerTlsConfig;
}

/**
 * What the gRPC server takes: its configuration with the TLS files read (the factory reads them at
 * startup), and bounds that have no YAML key.
 */
export interface GrpcReceiverConfig extends Omit<OtlpGrpcReceiverConfig, 'tls'> {
  tls?: ServerTlsOptions;
  /** Above this many request bytes in flight, new calls get UNAVAILABLE (default 256 MiB, as HTTP). */
  maxInFlightBytes?: number;
  /** How long shutdown lets calls finish before it cuts connections (default 10 s, as HTTP). */
  shutdownGraceMs?: number;
}

export const otlpGrpcReceiverSchema = section({
  endpoint: listenEndpoint().default({ host: DEFAULT_OTLP_GRPC_HOST, port: DEFAULT_OTLP_GRPC_PORT }),
  max_recv_msg_size_mib: count(1).default(DEFAULT_MAX_RECV_MSG_SIZE_MIB),
  auth: section({ bearer_token: text().optional() }),
  tls: serverTlsSchema.optional(),
}).transform(
  (grpc): OtlpGrpcReceiverConfig => ({
    ...grpc.endpoint,
    maxRecvMsgBytes: grpc.max_recv_msg_size_mib * MIB,
    ...(grpc.auth.bearer_token !== undefined ? { bearerToken: grpc.auth.bearer_token } : {}),
    ...(grpc.tls !== undefined ? { tls: grpc.tls } : {}),
  }),
);
