/**
 * `receivers.otlp`: OTLP over HTTP (`/v1/traces`, protobuf and JSON, gzip). Only the `http`
 * protocol exists; `protocols` may be left out to take its defaults.
 */
import type { OtlpHttpReceiverConfig } from '../evalon-config.ts';
import { section } from '../schema-kit.ts';
import { listenEndpoint, size, text } from '../values.ts';

export const DEFAULT_OTLP_HTTP_HOST = '127.0.0.1';
export const DEFAULT_OTLP_HTTP_PORT = 4318;
/** The OTLP specification's recommended limit. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 64 * 1024 * 1024;

const httpSchema = section({
  endpoint: listenEndpoint().default({ host: DEFAULT_OTLP_HTTP_HOST, port: DEFAULT_OTLP_HTTP_PORT }),
  max_request_body_size: size().default(DEFAULT_MAX_REQUEST_BODY_BYTES),
  auth: section({ bearer_token: text().optional() }),
}).transform((http): OtlpHttpReceiverConfig => ({
  ...http.endpoint,
  maxRequestBodyBytes: http.max_request_body_size,
  ...(http.auth.bearer_token !== undefined ? { bearerToken: http.auth.bearer_token } : {}),
}));

export const otlpReceiverSchema = section({
  protocols: section({ http: httpSchema }),
}).transform((otlp) => ({ http: otlp.protocols.http }));
