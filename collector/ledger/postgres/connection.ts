/**
 * The PostgreSQL store's connections: a `pg.Pool` on the ledger URL, the URL as messages show it
 * (password removed), transactions, and driver errors turned into `LedgerStoreError`s that name
 * the ledger.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { LedgerStoreError } from '../errors.ts';

/** Connections the store opens at most (span writes use one at a time; reads and evaluation writes the rest). */
export const DEFAULT_MAX_CONNECTIONS = 10;
/** How long to wait for a connection before failing (a server down fails at once with ECONNREFUSED). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Idle connections are closed after this. */
export const IDLE_TIMEOUT_MS = 30_000;
/** Runs of a transaction the server chose as a deadlock's or a serialization conflict's victim, at most. */
const TRANSACTION_ATTEMPTS = 4;

/**
 * Server errors that roll the whole transaction back for a reason outside it (another transaction
 * held what it needed): run again, it commits. deadlock_detected, serialization_failure.
 */
const TRANSIENT_CODES = new Set(['40P01', '40001']);

/** Driver and server error codes that mean "no usable connection" rather than "this statement failed". */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  '28000', // invalid authorization specification
  '28P01', // invalid password
  '3D000', // database does not exist
  '57P01', // admin shutdown
  '57P03', // cannot connect now (starting up, shutting down)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection exceptions
]);

/**
 * The ledger URL as messages show it: without its password (in the user part or as a query
 * parameter). An unparsable URL is cut down to its scheme and host part.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass/i.test(key)) parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, (userinfo) => `//${userinfo.slice(2).split(':')[0]}`);
  }
}

/** True when the error means the store could not reach the server (not that a statement failed). */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  const message = (error as Error)?.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|connection timeout/i.test(message);
}

/** `ledger <url>: <what>: <driver message>`, with the driver error as cause. */
export function ledgerError(where: string, what: string, error: unknown): LedgerStoreError {
  if (error instanceof LedgerStoreError) return error;
  const message = errorText(error);
  const prefix = isConnectionError(error) ? 'cannot connect' : what;
  return new LedgerStoreError(`ledger ${where}: ${prefix}: ${message}`, { cause: error });
}

function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map((e) => (e as Error).message).join('; ');
  }
  const message = (error as Error)?.message || String(error);
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

export interface PoolOptions {
  url: string;
  maxConnections?: number;
  connectTimeoutMs?: number;
}

export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    application_name: 'evalon',
  });
  // An idle connection that breaks (server restart) is dropped by the pool; the next query opens a
  // new one and reports its own error. Without a listener the 'error' event would crash the host.
  pool.on('error', () => {});
  return pool;
}

/** Runs `body` in one transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('BEGIN');
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError; // the connection is unusable: do not return it to the pool
    }
    throw error;
  } finally {
    client.release(broken instanceof Error ? broken : undefined);
  }
}

/** True when the server rolled the transaction back only because of another one (run it again). */
function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && TRANSIENT_CODES.has(code);
}

/**
 * Runs `run` again when the server rolled it back as a deadlock's (or a serialization conflict's)
 * victim: up to TRANSACTION_ATTEMPTS runs, a few milliseconds apart. For one statement, or one
 * transaction whose body does nothing but its queries, so that a second run is the first one done
 * over (the first left nothing behind).
 */
export async function retryConflicts<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isTransientConflict(error)) throw error;
      await sleep(5 * attempt + Math.floor(Math.random() * 10));
    }
  }
}

/** `inTransaction`, run again after a deadlock or a serialization conflict (`retryConflicts`). */
export function inRetriedTransaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return retryConflicts(() => inTransaction(pool, body));
}
