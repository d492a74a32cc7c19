/**
 * What every CLI command that talks to a running collector shares: where the API is, how to reach
 * it (its bearer token, the CAs to trust for `https://`), one GET of JSON with errors turned into
 * one line for the user, and the exit code that goes with it.
 *
 * The token and the CAs come from the command's `--token` and `--ca-file`, else from
 * `EVALON_API_TOKEN` and `EVALON_CA_CERTS`; a command without those options still honours the
 * variables (`getJson` reads them when it is given no access).
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { CliIo } from './cli-io.ts';

export const DEFAULT_API_URL = 'http://127.0.0.1:4319';
/** How long the command waits for the API. */
export const API_TIMEOUT_MS = 10_000;
/** Bodies larger than this are not the API's answer (the largest list is a few MiB). */
const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** TLS failures that mean the API's certificate is not trusted (or not for this host). */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export type { CliIo };

/** One line for the user and the exit code that goes with it. */
export class CommandFailure extends Error {
  readonly exitCode: 1 | 2;
  constructor(message: string, exitCode: 1 | 2) {
    super(message);
    this.name = 'CommandFailure';
    this.exitCode = exitCode;
  }
}
export const usage = (message: string) => new CommandFailure(message, 2);

export function apiBase(option: string | undefined, where: string): URL {
  const [value, source] =
    option !== undefined
      ? [option, '--api']
      : process.env.EVALON_API_URL
        ? [process.env.EVALON_API_URL, 'EVALON_API_URL']
        : [DEFAULT_API_URL, 'default'];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usage(`${where}: ${source} must be an http(s) URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usage(`${where}: ${source} must be an http(s) URL (got "${value}")`);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** How a command reaches the API: the bearer token it sends, the extra CAs it trusts. */
export interface ApiAccess {
  token?: string;
  /** Where the token came from, for the line that says it was refused. */
  tokenSource?: '--token' | 'EVALON_API_TOKEN';
  /** PEM CAs trusted in addition to the system's, for an `https://` API. */
  ca?: Buffer;
}

/** The access of `--token` / `--ca-file`, else of `EVALON_API_TOKEN` / `EVALON_CA_CERTS`. */
export function apiAccess(options: { token?: string; caFile?: string }, where: string): ApiAccess {
  const access: ApiAccess = {};
  const envToken = process.env.EVALON_API_TOKEN?.trim();
  if (options.token !== undefined) {
    if (options.token === '') throw usage(`${where}: --token needs a value`);
    access.token = options.token;
    access.tokenSource = '--token';
  } else if (envToken) {
    access.token = envToken;
    access.tokenSource = 'EVALON_API_TOKEN';
  }
  const envCa = process.env.EVALON_CA_CERTS?.trim();
  const [caFile, source] = options.caFile !== undefined ? [options.caFile, '--ca-file'] : [envCa, 'EVALON_CA_CERTS'];
  if (caFile) {
    try {
      access.ca = readFileSync(caFile);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw usage(`${where}: ${source} names ${caFile}, which cannot be read (${code ?? (error as Error).message})`);
    }
  }
  return access;
}

/**
 * GETs JSON; `explain` may turn an error status (and its body) into the line to print (exit 1), or
 * into a failure of its own.
 */
export function getJson(
  url: URL,
  where: string,
  explain: (status: number, body: unknown) => string | CommandFailure | undefined,
  access: ApiAccess = apiAccess({}, where),
): Promise<unknown> {
  return requestJson(url, where, explain, access);
}

/**
 * POSTs `body` as JSON; answers `{ status, body }` for a 2xx, or for a status in `accept` (a 409
 * the command shows as it is); other statuses fail as with `getJson`.
 */
export async function postJson(
  url: URL,
  body: unknown,
  where: string,
  explain: (status: number, body: unknown) => string | CommandFailure | undefined,
  access: ApiAccess,
  accept: readonly number[] = [],
): Promise<{ status: number; body: unknown }> {
  let status = 0;
  const answer = await requestJson(url, where, explain, access, {
    method: 'POST',
    body: JSON.stringify(body),
    accept,
    status: (code) => (status = code),
  });
  return { status, body: answer };
}

async function requestJson(
  url: URL,
  where: string,
  explain: (status: number, body: unknown) => string | CommandFailure | undefined,
  access: ApiAccess,
  post?: { method: 'POST'; body: string; accept: readonly number[]; status(code: number): void },
): Promise<unknown> {
  let response: { status: number; text: string };
  try {
    response = await send(url, access, post?.body);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && UNTRUSTED.has(code)) {
      throw new CommandFailure(
        `${where}: the certificate of the Evalon API at ${url.origin} is not trusted (${code}; pass --ca-file ` +
          'or set EVALON_CA_CERTS to the CA that signed it)',
        1,
      );
    }
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${API_TIMEOUT_MS / 1000} s`
        : (code ?? (error as Error).message);
    throw new CommandFailure(
      `${where}: cannot reach the Evalon API at ${url.origin} ` +
        `(${reason}; is the collector running? set --api or EVALON_API_URL)`,
      1,
    );
  }
  const { status, text } = response;
  if (status === 401) {
    throw new CommandFailure(
      access.token === undefined
        ? `${where}: the API requires a token: pass --token or set EVALON_API_TOKEN`
        : `${where}: the API refused the token of ${access.tokenSource} (is it the collector's ` +
            'extensions::api::auth::bearer_token?)',
      1,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CommandFailure(
      `${where}: ${url} answered ${status} with a body that is not JSON (is it the Evalon API?)`,
      1,
    );
  }
  post?.status(status);
  if ((status >= 200 && status < 300) || post?.accept.includes(status)) return body;
  const message = (body as { error?: unknown })?.error;
  const explained = explain(status, body);
  if (explained instanceof CommandFailure) throw explained;
  if (explained) throw new CommandFailure(explained, 1);
  if (status === 400) throw usage(`${where}: ${String(message)}`);
  throw new CommandFailure(`${where}: the API at ${url.origin} answered ${status}: ${String(message ?? text)}`, 1);
}

/**
 * One GET (or, with a body, a POST of JSON) over node:http(s), which takes extra CAs (fetch does
 * not, without another client).
 */
function send(url: URL, access: ApiAccess, body?: string): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (access.token !== undefined) headers.authorization = `Bearer ${access.token}`;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const options = {
    headers,
    signal: AbortSignal.timeout(API_TIMEOUT_MS),
    ...(body !== undefined ? { method: 'POST' } : {}),
  };
  return new Promise((resolve, reject) => {
    const onResponse = (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MAX_BODY_BYTES) response.destroy(new Error(`answer larger than ${MAX_BODY_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
    };
    const sent =
      url.protocol === 'https:'
        ? httpsRequest(
            url,
            { ...options, ...(access.ca ? { ca: [...rootCertificates, access.ca.toString()] } : {}) },
            onResponse,
          )
        : httpRequest(url, options, onResponse);
    sent.on('error', (error: Error) => reject(error.name === 'AbortError' ? timeoutError(error) : error));
    sent.end(body);
  });
}

function timeoutError(cause: Error): Error {
  const error = new Error(`no answer within ${API_TIMEOUT_MS} ms`, { cause });
  error.name = 'TimeoutError';
  return error;
}
