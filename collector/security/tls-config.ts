/**
 * `tls` as the OpenTelemetry Collector writes it, in two shapes:
 *
 * - on what listens (`receivers.otlp.protocols.http|grpc`, `extensions.api`,
 *   `exporters.prometheus`): `cert_file`, `key_file` and, for mutual TLS, `client_ca_file` (a
 *   client without a certificate signed by it is refused during the handshake);
 * - on what connects (`exporters.otlphttp`): `ca_file` (the CAs to trust instead of the system's),
 *   `insecure_skip_verify`, and a client certificate (`cert_file` with `key_file`) when the server
 *   asks for one.
 *
 * The schema checks the shape; the loader resolves the paths against the file that wrote them and
 * checks the files (`tls-files.ts`), which the components read again when they start.
 */
import * as z from 'zod';
import { describeValue } from '../../src/config/describe-value.ts';
import { section } from '../config/schema-kit.ts';

export const DEFAULT_INSECURE_SKIP_VERIFY = false;

/** `tls` of a server, normalised: absolute paths of PEM files. */
export interface ServerTlsConfig {
  certFile: string;
  keyFile: string;
  /** Mutual TLS: clients must present a certificate signed by one of these CAs. */
  clientCaFile?: string;
}

/** `tls` of a client (an `otlphttp` exporter), normalised. */
export interface ClientTlsConfig {
  /** Trusted instead of the system's CAs, when set. */
  caFile?: string;
  /** Accept any server certificate (never in production). */
  insecureSkipVerify: boolean;
  /** A client certificate, for servers that require one (with `keyFile`). */
  certFile?: string;
  keyFile?: string;
}

/** The keys of a `tls` mapping that name files, in either shape. */
export const TLS_FILE_KEYS = ['cert_file', 'key_file', 'client_ca_file', 'ca_file'] as const;

/** A path to a PEM file; `what` says what the file holds, for a missing required key. */
function pemFile(what: string) {
  return z.unknown().transform((value, context): string => {
    if (value === undefined) {
      context.addIssue({ code: 'custom', message: `is required (${what})` });
      return z.NEVER;
    }
    if (typeof value !== 'string' || value.trim() === '') {
      context.addIssue({ code: 'custom', message: `must be the path of a PEM file (got ${describeValue(value)})` });
      return z.NEVER;
    }
    return value;
  });
}

export const serverTlsSchema = section({
  cert_file: pemFile('the PEM certificate this server presents'),
  key_file: pemFile('the PEM private key of cert_file'),
  client_ca_file: pemFile('the PEM CAs that sign client certificates').optional(),
}).transform(
  (tls): ServerTlsConfig => ({
    certFile: tls.cert_file,
    keyFile: tls.key_file,
    ...(tls.client_ca_file !== undefined ? { clientCaFile: tls.client_ca_file } : {}),
  }),
);

export const clientTlsSchema = section({
  ca_file: pemFile('the PEM CAs to trust').optional(),
  insecure_skip_verify: z.boolean().default(DEFAULT_INSECURE_SKIP_VERIFY),
  cert_file: pemFile('the PEM client certificate').optional(),
  key_file: pemFile('the PEM private key of cert_file').optional(),
  // One transform, not a refinement and a transform: the problem stays one the enclosing section
  // reads past, so its own checks (tls on an http:// endpoint) are reported at the same time.
}).transform((tls, context): ClientTlsConfig => {
  if ((tls.cert_file === undefined) !== (tls.key_file === undefined)) {
    const [missing, given] = tls.cert_file === undefined ? ['cert_file', 'key_file'] : ['key_file', 'cert_file'];
    context.addIssue({
      code: 'custom',
      path: [missing],
      message: `is required with ${given} (a client certificate is a cert_file and its key_file)`,
    });
  }
  return {
    insecureSkipVerify: tls.insecure_skip_verify,
    ...(tls.ca_file !== undefined ? { caFile: tls.ca_file } : {}),
    ...(tls.cert_file !== undefined ? { certFile: tls.cert_file } : {}),
    ...(tls.key_file !== undefined ? { keyFile: tls.key_file } : {}),
  };
});
