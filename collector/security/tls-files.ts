/**
 * Reading the PEM files a `tls` mapping names (tls-config.ts), with one clear line when one cannot
 * be used: which YAML key, which file, and why (missing, unreadable, not a certificate, a key that
 * does not match its certificate). The loader checks them so `evalon validate` reports them; each
 * component reads them again when it starts (a file may have changed in between), through the
 * same functions.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClientTlsConfig, ServerTlsConfig } from './tls-config.ts';

/** A TLS file that cannot be used. `key` is the YAML key (`cert_file`), `where` the `tls` mapping's path. */
export class TlsFileError extends Error {
  readonly key: string;
  readonly file: string;
  /** What is wrong with the file: `does not exist`. */
  readonly reason: string;
  constructor(where: string, key: string, file: string, reason: string, options?: { cause?: unknown }) {
    super(`${where}::${key}: ${file} ${reason}`, options);
    this.name = 'TlsFileError';
    this.key = key;
    this.file = file;
    this.reason = reason;
  }
}

export type PemKind = 'certificate' | 'private key' | 'CA certificates';

/** What each file key of a `tls` mapping holds. */
export const PEM_KIND_OF_KEY: Readonly<Record<string, PemKind>> = {
  cert_file: 'certificate',
  key_file: 'private key',
  client_ca_file: 'CA certificates',
  ca_file: 'CA certificates',
};

const EXPECTED: Readonly<Record<PemKind, string>> = {
  certificate: 'a PEM certificate (-----BEGIN CERTIFICATE-----)',
  'private key': 'a PEM private key (-----BEGIN PRIVATE KEY-----)',
  'CA certificates': 'PEM CA certificates (-----BEGIN CERTIFICATE-----)',
};

/** Reads one PEM file and checks that it holds what `kind` says. */
export function readPemFile(where: string, key: string, file: string, kind: PemKind): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot be read (${(error as Error).message})`;
    throw new TlsFileError(where, key, file, reason, { cause: error });
  }
  try {
    if (kind === 'private key') createPrivateKey(pem);
    else new X509Certificate(pem);
  } catch (error) {
    throw new TlsFileError(where, key, file, `does not hold ${EXPECTED[kind]}`, { cause: error });
  }
  return pem;
}

/** What a Node TLS server takes, plus the client check for mutual TLS. */
export interface ServerTlsOptions {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
  /** Ask for a client certificate and refuse the handshake without one signed by `ca`. */
  requestCert: boolean;
  rejectUnauthorized: boolean;
}

export function readServerTls(tls: ServerTlsConfig, where: string): ServerTlsOptions {
  const cert = readPemFile(where, 'cert_file', tls.certFile, 'certificate');
  const key = readPemFile(where, 'key_file', tls.keyFile, 'private key');
  checkKeyMatches(where, cert, key, tls.keyFile);
  if (tls.clientCaFile === undefined) return { cert, key, requestCert: false, rejectUnauthorized: false };
  const ca = readPemFile(where, 'client_ca_file', tls.clientCaFile, 'CA certificates');
  return { cert, key, ca, requestCert: true, rejectUnauthorized: true };
}

/** What a Node TLS client (an https agent) takes. */
export interface ClientTlsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
}

export function readClientTls(tls: ClientTlsConfig, where: string): ClientTlsOptions {
  const options: ClientTlsOptions = { rejectUnauthorized: !tls.insecureSkipVerify };
  if (tls.caFile !== undefined) options.ca = readPemFile(where, 'ca_file', tls.caFile, 'CA certificates');
  if (tls.certFile !== undefined && tls.keyFile !== undefined) {
    options.cert = readPemFile(where, 'cert_file', tls.certFile, 'certificate');
    options.key = readPemFile(where, 'key_file', tls.keyFile, 'private key');
    checkKeyMatches(where, options.cert, options.key, tls.keyFile);
  }
  return options;
}

/** Throws when `key` is not the private key of the certificate `cert`. */
export function checkKeyMatches(where: string, cert: Buffer, key: Buffer, keyFile: string): void {
  if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key)))
    throw new TlsFileError(where, 'key_file', keyFile, 'is not the private key of cert_file');
}
