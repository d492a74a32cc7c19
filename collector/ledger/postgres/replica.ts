/**
 * Replica identity on a shared PostgreSQL ledger. Each collector replica has an id (config
 * `processors.evaluation.ledger.postgres.replica_id`, else `EVALON_REPLICA_ID`, else the host
 * name); its in-flight state (pending spans) is its own, so two live processes must never share
 * an id.
 *
 * Who holds an id is decided by a session-level advisory lock, `pg_try_advisory_lock(class, key)`
 * with `key` a hash of the id, taken on a dedicated connection and held for the life of the
 * store. The lock dies with that connection: a process killed with SIGKILL has its socket closed
 * by the kernel, its server backend exits and the lock is free again within milliseconds, so a
 * restart with the same id starts at once. A second live process finds the lock held and is
 * refused.
 *
 * The `replicas` row (pid, host, started_at, heartbeat_at refreshed every `heartbeatMs` on the
 * lock's connection) names the holder in messages and covers the one case the lock cannot: a
 * holder whose host vanished without closing its TCP connection keeps the lock until the server
 * notices (TCP keepalive, possibly hours). A claimer that finds the lock held watches the holder's
 * heartbeat: if it advances, the holder is alive and the claim is refused; if it stays older than
 * `STALE_AFTER_HEARTBEATS` intervals, the holder's backend is terminated
 * (`pg_terminate_backend`, allowed for the same role) and the lock taken.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import type { Logger } from '../../logger.ts';
import { LedgerStoreError } from '../errors.ts';
import { ledgerError } from './connection.ts';

/** How often a replica refreshes its heartbeat. */
export const DEFAULT_HEARTBEAT_MS = 5_000;
/** A heartbeat older than this many intervals is stale: its process is gone. */
export const STALE_AFTER_HEARTBEATS = 3;
/** The advisory lock class of replica ids: "Evln" in ASCII (the migration lock uses the one-key form). */
export const REPLICA_LOCK_CLASS = 0x45_76_6c_6e;
/** How often a claimer retries a held lock. */
const CLAIM_POLL_MS = 100;
export const MAX_REPLICA_ID_LENGTH = 200;

/** Another live process holds this replica id. */
export class ReplicaIdInUseError extends LedgerStoreError {
  readonly replicaId: string;
  constructor(message: string, replicaId: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ReplicaIdInUseError';
    this.replicaId = replicaId;
  }
}

/** The configured id, else `EVALON_REPLICA_ID`, else the host name. */
export function resolveReplicaId(configured?: string, env: NodeJS.ProcessEnv = process.env): string {
  const id = configured ?? (env.EVALON_REPLICA_ID || undefined) ?? hostname();
  if (id.length === 0 || id.length > MAX_REPLICA_ID_LENGTH || [...id].some((char) => char < ' ')) {
    throw new LedgerStoreError(
      `ledger: replica id ${JSON.stringify(id)} is not usable (1 to ${MAX_REPLICA_ID_LENGTH} printable characters; ` +
        'set replica_id or EVALON_REPLICA_ID)',
    );
  }
  return id;
}

/** The second key of the id's advisory lock: 32 bits of its SHA-256 (stable across servers). */
export function replicaLockKey(replicaId: string): number {
  return createHash('sha256').update(replicaId).digest().readInt32BE(0);
}

export interface ReplicaClaim {
  readonly replicaId: string;
  /** Stops the heartbeat and closes the lock's connection (the id is free again). */
  release(): Promise<void>;
}

export interface ClaimOptions {
  url: string;
  /** The ledger as messages name it (redacted URL). */
  where: string;
  replicaId: string;
  heartbeatMs?: number;
  connectTimeoutMs?: number;
  logger: Logger;
}

interface Holder {
  pid: number;
  host: string;
  backendPid: number;
  heartbeat: string;
  ageMs: number;
}

const UPSERT = `
  INSERT INTO replicas (replica_id, pid, host, backend_pid, started_at, heartbeat_at)
  VALUES ($1, $2, $3, pg_backend_pid(), now(), now())
  ON CONFLICT (replica_id) DO UPDATE
    SET pid = $2, host = $3, backend_pid = pg_backend_pid(), started_at = now(), heartbeat_at = now()`;
const HEARTBEAT = 'UPDATE replicas SET heartbeat_at = now() WHERE replica_id = $1';
const HOLDER = `
  SELECT pid, host, backend_pid, heartbeat_at::text AS heartbeat,
         (extract(epoch FROM clock_timestamp() - heartbeat_at) * 1000)::float8 AS age_ms
  FROM replicas WHERE replica_id = $1`;
/** Backends holding the id's lock (session locks show as granted advisory locks with objsubid 2). */
const TERMINATE_HOLDERS = `
  SELECT pg_terminate_backend(pid) AS terminated FROM pg_locks
  WHERE locktype = 'advisory' AND granted AND classid::bigint = ($1::bigint & 4294967295)
    AND objid::bigint = ($2::bigint & 4294967295) AND objsubid = 2
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/**
 * Takes the replica id for this process: resolves once the lock is held and the heartbeat
 * started; rejects with `ReplicaIdInUseError` when a live process holds it.
 */
export async function claimReplica(options: ClaimOptions): Promise<ReplicaClaim> {
  const { where, replicaId, logger } = options;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const key = replicaLockKey(replicaId);
  let client = await connect(options);
  try {
    await acquire(client, options, key, heartbeatMs * STALE_AFTER_HEARTBEATS);
    await client.query(UPSERT, [replicaId, process.pid, hostname()]);
  } catch (error) {
    await client.end().catch(() => {});
    throw error instanceof LedgerStoreError
      ? error
      : ledgerError(where, `cannot claim replica id "${replicaId}"`, error);
  }

  // The heartbeat runs on the lock's connection: a fresh heartbeat means the lock is held too.
  let lost = false;
  let released = false;
  let beating: Promise<void> | undefined;
  const beat = async (): Promise<void> => {
    if (!lost) {
      try {
        await client.query(HEARTBEAT, [replicaId]);
        return;
      } catch (error) {
        lost = true;
        await client.end().catch(() => {});
        logger.error(
          `ledger ${where}: lost the connection holding replica id ` +
            `"${replicaId}" (${(error as Error).message}); taking it again`,
        );
      }
    }
    // The lock went with the connection: take it again, unless another process has meanwhile.
    try {
      const next = await connect(options);
      const { rows } = await next.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
        REPLICA_LOCK_CLASS,
        key,
      ]);
      if (!rows[0].locked) {
        await next.end().catch(() => {});
        logger.error(
          `ledger ${where}: replica id "${replicaId}" is now held by another process; stop this collector or give ` +
            'one of them another replica_id',
        );
        return;
      }
      await next.query(UPSERT, [replicaId, process.pid, hostname()]);
      client = next;
      lost = false;
      logger.info(`ledger ${where}: holds replica id "${replicaId}" again`);
    } catch {
      // The server is still unreachable: the next beat tries again.
    }
  };
  const timer = setInterval(() => {
    if (!beating && !released) beating = beat().finally(() => (beating = undefined));
  }, heartbeatMs);
  timer.unref();

  return {
    replicaId,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await beating;
      await client.end().catch(() => {});
    },
  };
}

async function connect(options: ClaimOptions): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: `evalon replica ${options.replicaId}`.slice(0, 63),
  });
  // A broken connection is noticed by the next heartbeat; without a listener the error would crash the host.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/**
 * Takes the lock, waiting while its holder may be a process that just died (its backend about to
 * exit) or one whose heartbeat has not yet gone stale. Refuses as soon as the holder heartbeats.
 */
async function acquire(client: pg.Client, options: ClaimOptions, key: number, staleMs: number): Promise<void> {
  const { where, replicaId } = options;
  const started = Date.now();
  let first: string | undefined;
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
      REPLICA_LOCK_CLASS,
      key,
    ]);
    if (rows[0].locked) return;
    const holder = await readHolder(client, replicaId);
    first ??= holder?.heartbeat;
    if (holder && first !== undefined && holder.heartbeat !== first) {
      throw inUse(where, replicaId, holder);
    }
    const waited = Date.now() - started;
    const stale = holder ? holder.ageMs >= staleMs : waited >= staleMs;
    if (stale && waited >= CLAIM_POLL_MS * 5) {
      // The holder's connection is alive but its process no longer heartbeats (its host vanished).
      await client.query(TERMINATE_HOLDERS, [REPLICA_LOCK_CLASS, key]).catch(() => {});
      await sleep(CLAIM_POLL_MS);
      const retry = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
        REPLICA_LOCK_CLASS,
        key,
      ]);
      if (retry.rows[0].locked) return;
      throw new ReplicaIdInUseError(
        `ledger ${where}: replica id "${replicaId}" is held by a connection whose process no longer heartbeats` +
          `${holder ? ` (server backend ${holder.backendPid}, last heartbeat ${holder.heartbeat})` : ''}, ` +
          'and it could not be ended ' +
          '(end it with pg_terminate_backend, or set processors::evaluation::ledger::postgres::replica_id or ' +
          'EVALON_REPLICA_ID to another id)',
        replicaId,
      );
    }
    if (waited >= staleMs + CLAIM_POLL_MS * 10) throw inUse(where, replicaId, holder);
    await sleep(CLAIM_POLL_MS);
  }
}

async function readHolder(client: pg.Client, replicaId: string): Promise<Holder | undefined> {
  const { rows } = await client.query<{
    pid: number;
    host: string;
    backend_pid: number;
    heartbeat: string;
    age_ms: number;
  }>(HOLDER, [replicaId]);
  const row = rows[0];
  return (
    row && {
      pid: row.pid,
      host: row.host,
      backendPid: row.backend_pid,
      heartbeat: row.heartbeat,
      ageMs: Number(row.age_ms),
    }
  );
}

function inUse(where: string, replicaId: string, holder: Holder | undefined): ReplicaIdInUseError {
  const who = holder
    ? ` by process ${holder.pid} on ${holder.host} (last heartbeat ${Math.round(holder.ageMs)} ms ago)`
    : '';
  return new ReplicaIdInUseError(
    `ledger ${where}: replica id "${replicaId}" is in use${who} ` +
      '(each replica needs its own id: set ' +
      'processors::evaluation::ledger::postgres::replica_id or EVALON_REPLICA_ID; ' +
      `two replicas on one host must not share the host name default)`,
    replicaId,
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A migration's PL/pgSQL block that fails it while replicas of an older Evalon hold ids on this
 * database (the advisory lock a running replica holds), naming them: `why` says what they would
 * get wrong after the migration.
 */
export function refuseWhileOlderReplicasRun(why: string): string {
  return `DO $$
      DECLARE
        running text;
      BEGIN
        SELECT string_agg(coalesce(r.replica_id, 'server process ' || l.pid), ', ') INTO running
        FROM pg_locks l LEFT JOIN replicas r ON r.backend_pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = ${REPLICA_LOCK_CLASS} AND l.objsubid = 2
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database());
        IF running IS NOT NULL THEN
          RAISE EXCEPTION '%', 'replicas of an older Evalon are running on this database (' || running || '): '
            || 'stop them all, then start this version (${why})';
        END IF;
      END $$;`;
}
