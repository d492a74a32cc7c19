/**
 * `evalon collector` runs with its memory settings (V8's generation sizes, glibc's arenas and huge pages), applied
 * by starting itself again in place: the same process, so signals reach the collector itself; and
 * a setting the user gave is kept as given.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  COLLECTOR_ENV,
  COLLECTOR_MALLOC_ENV,
  COLLECTOR_NODE_FLAGS,
  compileCacheEnv,
  runtimeRestart,
} from '../../../collector/cli/runtime-settings.ts';
import { testConfigYaml } from '../../helpers/collector.ts';
import { spawnCollector, type CollectorProcess } from '../../helpers/collector-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'evalon-runtime-settings-'));
const running: CollectorProcess[] = [];
afterAll(() => {
  for (const collector of running) collector.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const FLAGS = COLLECTOR_NODE_FLAGS.map(([option, value]) => `${option}=${value}`);

describe('runtimeRestart', () => {
  it('adds every setting that is missing, before the arguments Node was given', () => {
    expect(runtimeRestart(['--inspect'], { PATH: '/bin' })).toEqual({
      execArgv: [...FLAGS, '--inspect'],
      env: { PATH: '/bin', ...COLLECTOR_ENV },
    });
  });

  it('keeps what the user gave, on the command line, in NODE_OPTIONS or as an environment variable', () => {
    const env = { NODE_OPTIONS: '--max_old_space_size=300', MALLOC_ARENA_MAX: '4' };
    const restart = runtimeRestart(['--max-semi-space-size=4', '--heap-growing-percent=50'], env)!;
    expect(restart.execArgv).toEqual([
      '--wasm-wrapper-tiering-budget=2147483647',
      '--max-semi-space-size=4',
      '--heap-growing-percent=50',
    ]);
    expect(restart.env).toMatchObject({ ...env, MALLOC_MMAP_THRESHOLD_: COLLECTOR_MALLOC_ENV.MALLOC_MMAP_THRESHOLD_ });
    expect(runtimeRestart(restart.execArgv, restart.env)).toBeUndefined();
  });

  it('adds the huge pages to glibc tunables the user set, unless they name them', () => {
    const own = { ...COLLECTOR_ENV, GLIBC_TUNABLES: 'glibc.malloc.tcache_count=0' };
    const restart = runtimeRestart(FLAGS, own)!;
    expect(restart.env.GLIBC_TUNABLES).toBe('glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1');
    expect(runtimeRestart(restart.execArgv, restart.env)).toBeUndefined();
    for (const tunables of ['glibc.malloc.hugetlb=0', 'glibc.malloc.check=0:glibc.malloc.hugetlb=2']) {
      expect(runtimeRestart(FLAGS, { ...COLLECTOR_ENV, GLIBC_TUNABLES: tunables })).toBeUndefined();
    }
  });

  it('keeps the compile cache of a checkout in its node_modules/.cache; Node’s own switches win', () => {
    const checkout = new URL('../../../', import.meta.url);
    expect(compileCacheEnv()).toEqual({
      NODE_COMPILE_CACHE: join(fileURLToPath(checkout), 'node_modules/.cache/evalon-compile'),
    });
    // The compiled package strips no types: nothing to cache for it.
    expect(compileCacheEnv('file:///srv/evalon/dist/collector/cli/runtime-settings.js')).toEqual({});
    const off = runtimeRestart(FLAGS, { ...COLLECTOR_MALLOC_ENV, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off).toBeUndefined();
    const own = runtimeRestart(FLAGS, { ...COLLECTOR_MALLOC_ENV, NODE_COMPILE_CACHE: '/var/cache/evalon' });
    expect(own).toBeUndefined();
  });

  it('has nothing to do once they are all in effect', () => {
    expect(runtimeRestart(FLAGS, { ...COLLECTOR_ENV })).toBeUndefined();
  });
});

describe('evalon collector', () => {
  function config(name: string): string {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, testConfigYaml(join(dir, name)));
    return file;
  }
  const processOf = (pid: number) => ({
    args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'),
    env: readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0'),
  });

  it('runs in the process it was started as, with its runtime settings', async () => {
    const collector = await spawnCollector(config('plain'));
    running.push(collector);
    const { args, env } = processOf(collector.child.pid!);
    expect(args.slice(1, 1 + FLAGS.length)).toEqual(FLAGS);
    expect(args).toContain('collector');
    for (const [name, value] of Object.entries(COLLECTOR_ENV)) expect(env).toContain(`${name}=${value}`);
    expect((await fetch(`${collector.apiUrl}/healthz`)).status).toBe(200);
    // Its C heap is on transparent huge pages wherever the kernel gives them on request.
    const hugePages = '/sys/kernel/mm/transparent_hugepage/enabled';
    if (existsSync(hugePages) && /\[(always|madvise)\]/.test(readFileSync(hugePages, 'utf8'))) {
      const rollup = readFileSync(`/proc/${collector.child.pid}/smaps_rollup`, 'utf8');
      expect(Number(/AnonHugePages:\s+(\d+) kB/.exec(rollup)?.[1])).toBeGreaterThan(0);
    }
    collector.child.kill('SIGTERM');
    expect(await collector.exited).toBe(0);
  });

  it('keeps a heap size the user set in NODE_OPTIONS', async () => {
    const collector = await spawnCollector(config('own'), { env: { NODE_OPTIONS: '--max-semi-space-size=32' } });
    running.push(collector);
    const { args, env } = processOf(collector.child.pid!);
    expect(args.some((arg) => arg.startsWith('--max-semi-space-size'))).toBe(false);
    expect(env).toContain('NODE_OPTIONS=--max-semi-space-size=32');
    for (const [name, value] of Object.entries(COLLECTOR_MALLOC_ENV)) expect(env).toContain(`${name}=${value}`);
    collector.child.kill('SIGKILL');
  });
});
