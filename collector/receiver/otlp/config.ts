/**
 * What the OTLP/HTTP receiver is given. The YAML keys (`receivers.otlp.protocols.http`) are parsed
 * and validated by collector/config; this is the normalised shape the receiver takes.
 */

/** The spec's recommended request limit (OTLP 1.11), also `max_request_body_size`'s default. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 64 * 1024 * 1024;
/** Request bytes held at once across all requests before new ones are answered 429. */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 256 * 1024 * 1024;
/** How long shutdown lets clients finish sending their bodies before it cuts their connections. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface OtlpReceiverConfig {
  /** Bind address (the collector's default is 127.0.0.1). */
  host: string;
  /** 0 asks the OS for a free port; `address()` then reports it. */
  port: number;
  /** `max_request_body_size`: checked on the wire and again after decompression (413). */
  maxRequestBodyBytes: number;
  /** `auth.bearer_token`: when set, requests need `Authorization: Bearer <token>` (401). */
  bearerToken?: string;
  /** Above this many request bytes in flight, new requests get 429 (default 256 MiB). */
  maxInFlightBytes?: number;
  /** Default 10 s; see DEFAULT_SHUTDOWN_GRACE_MS. */
  shutdownGraceMs?: number;
}

export interface OtlpReceiverHooks {
  /** Called once a request's spans are stored (after `next.consume` resolved). */
  onReceived?(accepted: number, rejected: number): void;
  logger?: { warn(message: string): void };
}
