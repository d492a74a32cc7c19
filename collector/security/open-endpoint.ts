/**
 * A warning for an endpoint that listens beyond this machine without a bearer token or mutual TLS:
 * anyone who can reach the port may use it (send spans, read the ledger's transcripts). Not an
 * error: a private network or a proxy in front may be the protection, but the operator should know.
 */
import type { HostPort } from '../config/values.ts';
import type { Logger } from '../logger.ts';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

export interface EndpointProtection {
  bearerToken?: string;
  /** `tls.client_ca_file` is set: clients prove who they are with a certificate. */
  mutualTls?: boolean;
}

export function warnIfOpen(logger: Logger, where: string, bound: HostPort, protection: EndpointProtection): void {
  if (protection.bearerToken !== undefined || protection.mutualTls || LOOPBACK.test(bound.host)) return;
  logger.warn(
    `${where}: listening on ${bound.host}:${bound.port} without auth::bearer_token: anyone who can reach the port ` +
      'can use it (set auth::bearer_token or tls::client_ca_file, see docs/security.md)',
  );
}
