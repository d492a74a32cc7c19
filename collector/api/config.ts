/**
 * `extensions.api`: health checks, readiness, the collector's counters and the ledger, read-only,
 * over HTTP.
 */
import { section } from '../config/schema-kit.ts';
import { listenEndpoint, type HostPort } from '../config/values.ts';

export const DEFAULT_API_HOST = '127.0.0.1';
export const DEFAULT_API_PORT = 4319;

/** `extensions.api`, normalised: where the API listens. */
export type ApiExtensionConfig = HostPort;

export const apiExtensionSchema = section({
  endpoint: listenEndpoint().default({ host: DEFAULT_API_HOST, port: DEFAULT_API_PORT }),
}).transform((api): ApiExtensionConfig => api.endpoint);
