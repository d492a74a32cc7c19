/**
 * What every CLI command that talks to a running collector shares: where the API is, one request
 * answering JSON with errors turned into one line for the user, and the exit code that goes with it.
 */

export const DEFAULT_API_URL = 'http://127.0.0.1:4319';
/** How long the command waits for the API. */
export const API_TIMEOUT_MS = 10_000;
import type { CliIo } from './cli-io.ts';

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

/**
 * GETs JSON; `explain` may turn an error status (and its body) into the line to print (exit 1), or
 * into a `CommandFailure` it throws itself.
 */
export async function getJson(
  url: URL,
  where: string,
  explain: (status: number, body: unknown) => string | undefined,
  init: { method?: 'GET' | 'POST' } = {},
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${API_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new CommandFailure(
      `${where}: cannot reach the Evalon API at ${url.origin} ` +
        `(${reason}; is the collector running? set --api or EVALON_API_URL)`,
      1,
    );
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CommandFailure(
      `${where}: ${url} answered ${response.status} with a body that is not JSON (is it the Evalon API?)`,
      1,
    );
  }
  if (response.ok) return body;
  const message = (body as { error?: unknown })?.error;
  const explained = explain(response.status, body);
  if (explained) throw new CommandFailure(explained, 1);
  if (response.status === 400) throw usage(`${where}: ${String(message)}`);
  throw new CommandFailure(
    `${where}: the API at ${url.origin} answered ${response.status}: ${String(message ?? text)}`,
    1,
  );
}
