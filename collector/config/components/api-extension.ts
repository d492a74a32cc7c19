/**
 * `extensions.api`: health checks and ledger queries over HTTP (spec §6).
 */
import type { HostPort } from '../evalon-config.ts';
import { section } from '../schema-kit.ts';
import { listenEndpoint } from '../values.ts';

export const DEFAULT_API_HOST = '127.0.0.1';
export const DEFAULT_API_PORT = 4319;

export const apiExtensionSchema = section({
  endpoint: listenEndpoint().default({ host: DEFAULT_API_HOST, port: DEFAULT_API_PORT }),
}).transform((api): HostPort => api.endpoint);
