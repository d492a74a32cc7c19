/**
 * What the OTLP/gRPC receiver is given. The YAML keys (`receivers.otlp.protocols.grpc`) are parsed
 * and validated by collector/config; this is the normalised shape the receiver takes.
 */

/** gRPC's and the OpenTelemetry Collector's default `max_recv_msg_size_mib`: 4 MiB. */
export const DEFAULT_MAX_RECV_MSG_BYTES = 4 * 1024 * 1024;

export interface GrpcReceiverConfig {
  /** Bind address (the collector's default is 127.0.0.1). */
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
  /** Above this many request bytes in flight, new calls get UNAVAILABLE (default 256 MiB, as HTTP). */
  maxInFlightBytes?: number;
  /** How long shutdown lets calls finish before it cuts connections (default 10 s, as HTTP). */
  shutdownGraceMs?: number;
}
