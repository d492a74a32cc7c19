/**
 * `receivers.otlp`: OTLP over HTTP (`/v1/traces`, protobuf and JSON, gzip) and, when the `grpc`
 * key is written, OTLP over gRPC (`TraceService/Export`, `./grpc/config.ts`). `http` always runs
 * (`protocols` may be left out to take its defaults); `grpc` runs only when present, as in the
 * OpenTelemetry Collector.
 */
import { section } from '../../config/schema-kit.ts';
import { listenEndpoint, size, text } from '../../config/values.ts';
import { serverTlsSchema, type ServerTlsConfig } from '../../security/tls-config.ts';
import type { ServerTlsOptions } from '../../security/tls-files.ts';
import { otlpGrpcReceiverSchema, type OtlpGrpcReceiverConfig } from './grpc/config.ts';
import type { RefusalReason } from './refusals.ts';

export const DEFAULT_OTLP_HTTP_HOST = '127.0.0.1';
export const DEFAULT_OTLP_HTTP_PORT = 4318;
/** The OTLP specification's recommended request limit (OTLP 1.11). */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 64 * 1024 * 1024;
/** Request bytes held at once across all requests before new ones are answered 429. */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 256 * 1024 * 1024;
/** How long shutdown lets clients finish sending their bodies before it cuts their connections. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** `receivers.otlp.protocols.http`, normalised. */
export interface OtlpHttpReceiverConfig {
  /** Bind address (default 127.0.0.1). */
  host: string;
  /** 0 asks the OS for a free port; `address()` then reports it. */
  port: number;
  /** `max_request_body_size`: checked on the wire and again after decompression (413). */
  maxRequestBodyBytes: number;
  /** `auth.bearer_token`: when set, requests need `Authorization: Bearer <token>` (401). */
  bearerToken?: string;
  /** `tls`: serve HTTPS (mutual TLS with `client_ca_file`). */
  tls?: ServerTlsConfig;
}

/**
 * What the HTTP server takes: its configuration with the TLS files read (the factory reads them at
 * startup), and bounds that have no YAML key.
 */
export interface OtlpReceiverConfig extends Omit<OtlpHttpReceiverConfig, 'tls'> {
  tls?: ServerTlsOptions;
  /** Above this many request bytes in flight, new requests get 429 (default 256 MiB). */
  maxInFlightBytes?: number;
  /** Default 10 s; see DEFAULT_SHUTDOWN_GRACE_MS. */
  shutdownGraceMs?: number;
}

/** `receivers.otlp`, normalised: its protocols. */
export interface OtlpProtocolsConfig {
  http: OtlpHttpReceiverConfig;
  grpc?: OtlpGrpcReceiverConfig;
}

export interface OtlpReceiverHooks {
  /** Called once a request's spans are stored (after `next.consume` resolved). */
  onReceived?(accepted: number, rejected: number): void;
  /** Called for each refusal: a whole request (its spans, or 1 when not decoded) or spans refused one by one. */
  onRefused?(reason: RefusalReason, spans: number): void;
  logger?: { warn(message: string): void };
}

const httpSchema = section({
  endpoint: listenEndpoint().default({ host: DEFAULT_OTLP_HTTP_HOST, port: DEFAULT_OTLP_HTTP_PORT }),
  max_request_body_size: size().default(DEFAULT_MAX_REQUEST_BODY_BYTES),
  auth: section({ bearer_token: text().optional() }),
  tls: serverTlsSchema.optional(),
}).transform(
  (http): OtlpHttpReceiverConfig => ({
    ...http.endpoint,
    maxRequestBodyBytes: http.max_request_body_size,
    ...(http.auth.bearer_token !== undefined ? { bearerToken: http.auth.bearer_token } : {}),
    ...(http.tls !== undefined ? { tls: http.tls } : {}),
  }),
);

export const otlpReceiverSchema = section({
  protocols: section({ http: httpSchema, grpc: otlpGrpcReceiverSchema.optional() }),
}).transform(
  (otlp): OtlpProtocolsConfig => ({
    http: otlp.protocols.http,
    ...(otlp.protocols.grpc !== undefined ? { grpc: otlp.protocols.grpc } : {}),
  }),
);
