/**
 * `extensions.api`: health checks, readiness, the collector's counters and the ledger, read-only,
 * over HTTP or, with `tls`, HTTPS (mutual TLS with `tls.client_ca_file`). With `auth.bearer_token`,
 * everything but `/healthz` and `/readyz` needs `Authorization: Bearer <token>`.
 */
import { section } from '../config/schema-kit.ts';
import { listenEndpoint, text, type HostPort } from '../config/values.ts';
import { serverTlsSchema, type ServerTlsConfig } from '../security/tls-config.ts';

export const DEFAULT_API_HOST = '127.0.0.1';
export const DEFAULT_API_PORT = 4319;

/** `extensions.api`, normalised: where the API listens, its token and its TLS. */
export interface ApiExtensionConfig extends HostPort {
  /** `auth.bearer_token`: when set, `/api/*` and `/ui/` answer 401 without it. */
  bearerToken?: string;
  tls?: ServerTlsConfig;
}

export const apiExtensionSchema = section({
  endpoint: listenEndpoint().default({ host: DEFAULT_API_HOST, port: DEFAULT_API_PORT }),
  auth: section({ bearer_token: text().optional() }),
  tls: serverTlsSchema.optional(),
}).transform(
  (api): ApiExtensionConfig => ({
    ...api.endpoint,
    ...(api.auth.bearer_token !== undefined ? { bearerToken: api.auth.bearer_token } : {}),
    ...(api.tls !== undefined ? { tls: api.tls } : {}),
  }),
);
