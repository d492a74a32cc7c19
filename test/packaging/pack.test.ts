/**
 * The npm package as a user gets it (docs/packaging.md): `npm pack` builds dist/ (the prepack
 * script) and yields a tarball that installs into an empty project, where every public entry
 * imports, the `evalon` bin runs (help, version, validate, and the collector itself, whose ledger
 * writer is a worker script loaded by URL) and the declarations type-check a TypeScript consumer.
 *
 * The package is built from a copy of the checkout, so that the build never rewrites the repo's
 * own dist/ while other tests run. It is slow for a unit test (a build and an `npm install`, about
 * 10 s with a warm npm cache) but stays in the suite with long timeouts: CI runs `npm test`, and
 * this is the only check of what `npm publish` would ship.
 */
import { spawn } from 'node:child_process';
import { builtinModules } from 'node:module';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../helpers/poll.ts';
import { cleanEnv, listeningAddresses, run, runOk } from './helpers/child-processes.ts';
import { modulesLoadedBy, packagesIn } from './helpers/loaded-modules.ts';
import { filesUnder, importedSpecifiers, packageNameOf } from './helpers/package-files.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** Top-level entries of the checkout that are not inputs of the package (or are large and local). */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'data', '.bench', 'evalon-runs', 'coverage']);
const SETUP_TIMEOUT_MS = 240_000;

let root: string;
let consumer: string;
let installed: string;
let tarball: string;
const timings: Record<string, number> = {};
const repoPackage = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  exports: Record<string, string | { types: string; default: string }>;
  dependencies: Record<string, string>;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'evalon-pack-'));
  const source = join(root, 'package');
  let started = performance.now();
  cpSync(REPO, source, {
    recursive: true,
    filter: (path) => !(dirname(path) === REPO.replace(/\/$/, '') && NOT_COPIED.has(basename(path))),
  });
  symlinkSync(join(REPO, 'node_modules'), join(source, 'node_modules'), 'dir');
  // Like `npm publish`: prepack builds dist/, then the tarball is written.
  await runOk('npm', ['pack', '--pack-destination', root], source);
  timings.packMs = performance.now() - started;
  tarball = join(root, readdirSync(root).find((name) => name.endsWith('.tgz'))!);

  started = performance.now();
  consumer = join(root, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'evalon-consumer', private: true, type: 'module' }, null, 2),
  );
  // The dependencies come from npm's cache when `npm ci` has filled it, else from the registry.
  await runOk(
    'npm',
    ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
    consumer,
    { timeoutMs: 180_000 },
  );
  timings.installMs = performance.now() - started;
  installed = join(consumer, 'node_modules', repoPackage.name);
  console.log(
    `packaging: npm pack ${Math.round(timings.packMs)} ms, tarball ${statSync(tarball).size} bytes ` +
      `(${basename(tarball)}), npm install ${Math.round(timings.installMs)} ms`,
  );
}, SETUP_TIMEOUT_MS);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the npm tarball', () => {
  it(
    'holds the compiled JS and declarations under dist/, the bin, .env.example, the licence and no TypeScript ' +
      'sources',
    () => {
      const files = filesUnder(installed).map((file) => relative(installed, file).split('\\').join('/'));
      expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual([
        '.env.example',
        'LICENSE',
        'README.md',
        'bin/evalon.js',
        'package.json',
      ]);
      expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
      // The CLI and the worker script the SQLite ledger loads by URL.
      expect(files).toEqual(
        expect.arrayContaining(['dist/collector/cli/main.js', 'dist/collector/ledger/sqlite/writer-thread.js']),
      );
      // The review page's scripts are served to browsers as they are: plain JS, no declarations.
      const page = 'dist/collector/api/ui/static/';
      expect(files).toEqual(expect.arrayContaining([`${page}index.html`, `${page}app.js`, `${page}style.css`]));
      for (const file of files.filter(
        (name) => name.endsWith('.js') && name.startsWith('dist/') && !name.startsWith(page),
      )) {
        expect(files, `${file} has its declarations`).toContain(file.replace(/\.js$/, '.d.ts'));
      }
    },
  );

  it('has a compiled file and a declaration file for every entry of `exports`', () => {
    const entries = Object.entries(repoPackage.exports).filter(([, target]) => typeof target !== 'string');
    expect(entries.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        '.',
        './instrumentation',
        './register',
        './evaluation',
        './judge',
        './simulation',
        './testing',
      ]),
    );
    for (const [name, target] of entries) {
      const { types, default: compiled } = target as { types: string; default: string };
      expect(existsSync(join(installed, compiled)), `${name} → ${compiled}`).toBe(true);
      expect(existsSync(join(installed, types)), `${name} → ${types}`).toBe(true);
    }
  });

  it('imports nothing at run time but Node built-ins and its declared dependencies', () => {
    const allowed = new Set(Object.keys(repoPackage.dependencies));
    const undeclared = new Set<string>();
    for (const file of filesUnder(join(installed, 'dist')).filter((name) => name.endsWith('.js'))) {
      for (const specifier of importedSpecifiers(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
        const name = packageNameOf(specifier);
        if (name !== repoPackage.name && !allowed.has(name)) undeclared.add(`${name} (${relative(installed, file)})`);
      }
    }
    expect([...undeclared]).toEqual([]);
  });
});

describe('installed into an empty project', () => {
  it('imports every public entry', async () => {
    const script = `
      const entries = [
        'evalon',
        'evalon/instrumentation',
        'evalon/evaluation',
        'evalon/judge',
        'evalon/simulation',
        'evalon/testing',
      ];
      for (const entry of entries) {
        const module = await import(entry);
        if (Object.keys(module).length === 0) throw new Error(entry + ' exports nothing');
      }
      const { register, invokeAgent } = await import('evalon/instrumentation');
      const { createScriptedModel } = await import('evalon/testing');
      console.log(typeof register, typeof invokeAgent, typeof createScriptedModel);
    `;
    const result = await runOk(process.execPath, ['--input-type=module', '-e', script], consumer);
    expect(result.stdout.trim()).toBe('function function function');
  });

  it('loads no OpenTelemetry SDK package through the root entry `evalon` (evalon/instrumentation does)', async () => {
    const root = packagesIn(await modulesLoadedBy('evalon', consumer));
    expect(root).toContain('@opentelemetry/api');
    expect(root.filter((name) => name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api')).toEqual([]);
    expect(packagesIn(await modulesLoadedBy('evalon/instrumentation', consumer))).toContain('@opentelemetry/sdk-node');
  });

  it('instruments an agent with `node --import evalon/register` and `invokeAgent`', async () => {
    const script = `
      import { invokeAgent } from 'evalon/instrumentation';
      const reply = await invokeAgent({ id: 'packaged-agent', input: 'hi' }, async () => 'hello');
      console.log(reply.result, /^[0-9a-f]{32}-[0-9a-f]{16}$/.test(reply.interactionId ?? ''));
    `;
    const result = await runOk(
      process.execPath,
      ['--import', 'evalon/register', '--input-type=module', '-e', script],
      consumer,
      {
        // Spans go to the console exporter: no collector is needed, and nothing leaves the machine.
        env: { OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'packaged' },
      },
    );
    expect(result.stdout).toContain('hello true');
  });

  it('runs `npx evalon --help` and `--version`', async () => {
    const help = await runOk('npx', ['evalon', '--help'], consumer);
    expect(help.stdout).toContain('Usage: evalon <command> [options]');
    const version = await runOk('npx', ['evalon', '--version'], consumer);
    expect(version.stdout.trim()).toBe(repoPackage.version);
  });

  it('runs `npx evalon validate --config` on a minimal configuration, exit 0', async () => {
    const config = join(consumer, 'minimal.yaml');
    writeFileSync(
      config,
      [
        'receivers:',
        '  otlp:',
        'processors:',
        '  interactions:',
        '  evaluation:',
        'service:',
        '  pipelines:',
        '    traces:',
        '      receivers: [otlp]',
        '      processors: [interactions, evaluation]',
        '',
      ].join('\n'),
    );
    const result = await run('npx', ['evalon', 'validate', '--config', config], consumer);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('OK: ');
  });

  it('runs the collector from the tarball: a span in, an interaction in the ledger', async () => {
    const config = join(consumer, 'collector.yaml');
    writeFileSync(
      config,
      `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:0
processors:
  interactions:
    settle: 100ms
  evaluation:
    ledger:
      sqlite: { path: ${join(consumer, 'ledger.db')} }
extensions:
  api: { endpoint: 127.0.0.1:0 }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
    );
    const child = spawn(
      process.execPath,
      [join(consumer, 'node_modules', '.bin', 'evalon'), 'collector', '--config', config],
      {
        cwd: consumer,
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const { otlpUrl, apiUrl } = await listeningAddresses(child);
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const spanId = 'b7ad6b7169203331';
      const response = await fetch(otlpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: agentSpan(traceId, spanId),
      });
      expect(response.status).toBe(200);
      const record = await pollUntil(
        async () => {
          const found = await fetch(`${apiUrl}/api/v1/interactions/${traceId}-${spanId}`);
          return found.status === 200
            ? ((await found.json()) as { agentId: string; finalResponseText: string })
            : undefined;
        },
        { timeoutMs: 20_000, what: 'the interaction in the ledger' },
      );
      expect(record).toMatchObject({ agentId: 'packaged-agent', finalResponseText: 'Your order has shipped.' });
      // The review page's files ship in the package (the build copies them into dist/).
      for (const file of ['', 'app.js', 'style.css']) {
        const page = await fetch(`${apiUrl}/ui/${file}`);
        expect(page.status, `/ui/${file}`).toBe(200);
      }
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('type-checks a TypeScript consumer against the published declarations', async () => {
    writeFileSync(
      join(consumer, 'consumer.ts'),
      `import { invokeAgent, type InteractionRecord } from 'evalon';
import { register, type InvokeAgentOptions } from 'evalon/instrumentation';
import { createScriptedModel, type ScriptedModel } from 'evalon/testing';
import * as evaluation from 'evalon/evaluation';
import * as judge from 'evalon/judge';
import * as simulation from 'evalon/simulation';
import 'evalon/register';

const options: InvokeAgentOptions = { id: 'support-agent', roles: ['customer-facing'] };
export const reply: Promise<{ result: number; interactionId: string | undefined }> = invokeAgent(
  options,
  async () => 42,
);
export const answer = (record: InteractionRecord): string => record.finalResponseText;
export const model: Promise<ScriptedModel> = createScriptedModel();
export const loaded = [register, evaluation, judge, simulation];
// The declarations are real types, not \`any\`: a wrong use is an error.
// @ts-expect-error a number is not a string
export const wrong: number = ({} as InteractionRecord).finalResponseText;
// @ts-expect-error invokeAgent needs the agent's id
void invokeAgent({}, async () => 1);
`,
    );
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify(
        {
          compilerOptions: {
            target: 'es2023',
            module: 'nodenext',
            moduleResolution: 'nodenext',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            // @types/node from the checkout: the consumer project installs only evalon.
            typeRoots: [join(REPO, 'node_modules', '@types')],
            types: ['node'],
          },
          files: ['consumer.ts'],
        },
        null,
        2,
      ),
    );
    const result = await run(
      process.execPath,
      [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      consumer,
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

/** One finished `invoke_agent` span as OTLP/JSON, as in the README. */
function agentSpan(traceId: string, spanId: string): string {
  const now = BigInt(Date.now()) * 1_000_000n;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'packaged' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId,
                name: 'invoke_agent packaged-agent',
                kind: 1,
                startTimeUnixNano: String(now - 5_000_000n),
                endTimeUnixNano: String(now),
                attributes: [
                  { key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } },
                  { key: 'gen_ai.agent.id', value: { stringValue: 'packaged-agent' } },
                  {
                    key: 'gen_ai.output.messages',
                    value: {
                      stringValue: JSON.stringify([
                        { role: 'assistant', parts: [{ type: 'text', content: 'Your order has shipped.' }] },
                      ]),
                    },
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  });
}
