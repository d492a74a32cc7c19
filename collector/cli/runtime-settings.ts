/**
 * The runtime settings `evalon collector` runs with. With Node's defaults, a collector under
 * sustained ingest held several times the memory it uses: V8 grew each thread's young generation
 * to 128 MiB, and the C allocator kept freed request buffers in per-thread arenas. Measured in
 * docs/benchmarks.md ("Ingest"). These settings can only be given when a process starts, so
 * the command starts itself again in place (`process.execve`: the same process id, so signals
 * and `kill -9` reach the collector itself) before anything else happens.
 *
 * A setting the user gave (a Node flag in NODE_OPTIONS or on the command line, a MALLOC_ variable, a
 * glibc tunable, NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE) is kept as given. Where `process.execve` is
 * missing (Windows) the collector runs with Node's defaults.
 */
import { fileURLToPath } from 'node:url';

/**
 * Calls from WebAssembly into JavaScript keep V8's generic wrapper instead of getting a compiled
 * one after 1,000 calls. Node strips the types of the `.ts` sources each worker thread loads with a
 * WebAssembly module; V8 13.6 (Node 24) can abort the whole process with `Check failed:
 * jit_page.has_value()` when it frees such a compiled wrapper while other threads start or stop.
 * Without compiled wrappers there is nothing to free. The cost is a slower call into JavaScript
 * while a module is loaded, nothing once it is. The test processes run with it too
 * (vitest.config.ts).
 */
export const WASM_WRAPPER_TIERING = ['--wasm-wrapper-tiering-budget', '2147483647'] as const;

/** V8 flags, by the option they set (Node documents both). */
export const COLLECTOR_NODE_FLAGS: ReadonlyArray<readonly [option: string, value: string]> = [
  // Young generation 16 MiB instead of 128 MiB: scavenges come more often and cost the same each;
  // at a paced 35,000 spans/s the peak RSS fell by 30-40 MiB against 32 MiB (docs/benchmarks.md).
  ['--max-semi-space-size', '8'],
  // The old generation grows to 2x what the last full collection kept before the next one, instead
  // of up to 4x: with 100,000 traces pending (~190 MiB live) the heap held 410 MiB, with this
  // ~240 MiB. 1.3x collected so often that the verdict lag's p99 tripled (docs/benchmarks.md). No
  // hard cap: near one V8 collects far more often still.
  ['--heap-growing-percent', '100'],
  WASM_WRAPPER_TIERING,
];

/**
 * The glibc tunable the collector adds to `GLIBC_TUNABLES`, unless the user's names it: malloc asks
 * the kernel for transparent huge pages (`madvise`, the kernel's usual mode) where its heap grows.
 * Node copies every chunk of a request body into a fresh allocation; on a virtual machine a page
 * fault costs ~11 µs, and under sustained ingest the faults of 4 KiB pages took ~10 % of the event
 * loop. On huge pages the collector took a third of the faults; its event loop alone acknowledged
 * 21-36 % more spans a second (~9 % with recording beside it), for 3-37 MiB more RSS at the peak of
 * sustained ingest and ~2 MiB idle (docs/benchmarks.md, "Huge pages for the C heap"). Where the
 * kernel offers no huge pages (or glibc is older than 2.35, or not glibc) it changes nothing.
 */
const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb';

/**
 * glibc malloc: one arena, large blocks (request bodies) returned to the system when freed, and
 * the heap on transparent huge pages.
 */
export const COLLECTOR_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '1',
  MALLOC_MMAP_THRESHOLD_: '131072',
  GLIBC_TUNABLES: `${HUGE_PAGES_TUNABLE}=1`,
};

/**
 * Where Node keeps its compile cache for a checkout, which runs its `.ts` sources: their stripped
 * JavaScript and V8's code cache, so that a start after the first strips nothing and no thread of
 * the collector loads Node's type-stripping WebAssembly module (idle, 159 MiB of RSS instead of
 * 171; ~5 MiB less for each thread; docs/configuration.md). In the checkout's `node_modules/.cache`,
 * which only its owner writes: Node runs the JavaScript it finds in the cache, so a folder under
 * the shared temporary one, Node's default, would let another user of the machine put code there.
 * The compiled package (`.js`) strips nothing and does not set it.
 */
export function compileCacheEnv(moduleUrl: string = import.meta.url): Record<string, string> {
  if (!moduleUrl.endsWith('.ts')) return {};
  return { NODE_COMPILE_CACHE: fileURLToPath(new URL('../../node_modules/.cache/evalon-compile', moduleUrl)) };
}

/** Environment variables the collector runs with. */
export const COLLECTOR_ENV: Readonly<Record<string, string>> = { ...COLLECTOR_MALLOC_ENV, ...compileCacheEnv() };

/**
 * Starts this process again with the collector's runtime settings, unless they are in effect or
 * cannot be applied. Returns only when it does not restart. `argv` are the CLI's arguments.
 */
export function restartWithRuntimeSettings(argv: readonly string[]): void {
  if (argv[0] !== 'collector' || argv.some((arg) => arg === '--help' || arg === '-h')) return;
  const restart = runtimeRestart(process.execArgv, process.env);
  if (!restart || typeof process.execve !== 'function') return;
  try {
    process.execve(process.execPath, [process.execPath, ...restart.execArgv, process.argv[1]!, ...argv], restart.env);
  } catch (error) {
    // The process goes on as it is, with Node's defaults.
    process.emitWarning(`evalon collector: could not apply its runtime settings: ${(error as Error).message}`);
  }
}

/** The Node arguments and environment to start again with, or undefined when nothing is missing. */
export function runtimeRestart(
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): { execArgv: string[]; env: NodeJS.ProcessEnv } | undefined {
  const given = `${execArgv.join(' ')} ${env.NODE_OPTIONS ?? ''}`;
  const flags = COLLECTOR_NODE_FLAGS.filter(([option]) => !mentions(given, option)).map(
    ([option, value]) => `${option}=${value}`,
  );
  // NODE_DISABLE_COMPILE_CACHE is Node's own way to turn the cache off: then it is not asked for.
  const missingEnv = Object.entries(COLLECTOR_ENV).filter(
    ([name]) => env[name] === undefined && !(name === 'NODE_COMPILE_CACHE' && env.NODE_DISABLE_COMPILE_CACHE),
  );
  // Tunables the user set are kept, and the huge pages added beside them unless they name them.
  const tunables = env.GLIBC_TUNABLES;
  if (tunables !== undefined && !tunables.split(':').some((tunable) => tunable.startsWith(`${HUGE_PAGES_TUNABLE}=`))) {
    missingEnv.push(['GLIBC_TUNABLES', [tunables, COLLECTOR_MALLOC_ENV.GLIBC_TUNABLES].filter(Boolean).join(':')]);
  }
  if (flags.length === 0 && missingEnv.length === 0) return undefined;
  return { execArgv: [...flags, ...execArgv], env: { ...env, ...Object.fromEntries(missingEnv) } };
}

/** Whether a flag is given, in either spelling (`--max-old-space-size`, `--max_old_space_size`). */
function mentions(given: string, option: string): boolean {
  return given.includes(option) || given.includes(option.replace(/(?<=^--.*)-/g, '_'));
}
