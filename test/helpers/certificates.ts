/**
 * Certificates made for a test with `openssl` (P-256 keys, valid two days): a CA, a server leaf for
 * 127.0.0.1 and localhost (in the subject alternative names) and a client leaf it signed, plus a
 * second CA with its own client leaf, which a server trusting the first must refuse.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PemPair {
  /** Paths, for configuration files. */
  certFile: string;
  keyFile: string;
  /** Contents, for clients. */
  cert: Buffer;
  key: Buffer;
}

export interface TestCertificates {
  dir: string;
  /** The CA that signed `server` and `client`. */
  ca: PemPair;
  server: PemPair;
  client: PemPair;
  /** Another CA, and a client leaf it signed: not trusted where `ca` is. */
  otherCa: PemPair;
  otherClient: PemPair;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function pair(dir: string, name: string): PemPair {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  return { certFile, keyFile, cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

function makeCa(dir: string, name: string): PemPair {
  openssl(
    [
      'req',
      '-x509',
      ...KEY,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=Evalon test ${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  return pair(dir, name);
}

function makeLeaf(dir: string, name: string, ca: string, usage: 'serverAuth' | 'clientAuth'): PemPair {
  const extensions = [
    'basicConstraints=CA:FALSE',
    `extendedKeyUsage=${usage}`,
    ...(usage === 'serverAuth' ? ['subjectAltName=IP:127.0.0.1,DNS:localhost'] : []),
  ];
  writeFileSync(join(dir, `${name}.ext`), `${extensions.join('\n')}\n`);
  openssl(['req', ...KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${ca}.pem`,
      '-CAkey',
      `${ca}.key`,
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
  return pair(dir, name);
}

export function createTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-tls-'));
  const ca = makeCa(dir, 'ca');
  const otherCa = makeCa(dir, 'other-ca');
  return {
    dir,
    ca,
    server: makeLeaf(dir, 'server', 'ca', 'serverAuth'),
    client: makeLeaf(dir, 'client', 'ca', 'clientAuth'),
    otherCa,
    otherClient: makeLeaf(dir, 'other-client', 'other-ca', 'clientAuth'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
