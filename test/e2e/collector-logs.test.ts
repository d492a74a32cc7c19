/**
 * The collector's log as the `evalon collector` command writes it to stderr: with
 * `service.telemetry.logs.encoding: json` every line is one JSON object (level, time, msg) from
 * the first to the last, configuration warnings included; `level: warn` hides the info lines; and
 * no configured secret (bearer tokens, a secret exporter header) appears in any line, even at
 * `debug` while requests with wrong tokens are refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnCollector, type CollectorProcess } from '../helpers/collector-process.ts';
import { pollUntil } from '../helpers/poll.ts';

const INGEST_TOKEN = 'ingest-secret-4a5b6c';
const API_TOKEN = 'api-secret-7d8e9f';
const HEADER_SECRET = 'backend-key-1a2b3c';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function configFile(yaml: (dir: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-logs-'));
  dirs.push(dir);
  const file = join(dir, 'otel-config.yaml');
  writeFileSync(file, yaml(dir));
  return file;
}

async function stop(collector: CollectorProcess): Promise<string[]> {
  collector.child.kill('SIGTERM');
  expect(await collector.exited).toBe(0);
  return collector
    .log()
    .split('\n')
    .filter((line) => line !== '');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('writes JSON lines only, and never a configured secret, at debug level', async () => {
  const file = configFile(
    (dir) => `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0, auth: { bearer_token: "\${env:TEST_INGEST_TOKEN}" } }
processors:
  interactions: { settle: 100ms }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
exporters:
  otlphttp/backend:
    endpoint: http://127.0.0.1:9
    headers: { x-api-key: "\${env:TEST_HEADER_SECRET}", x-note: "\${NOTE}" }
extensions:
  api: { endpoint: 127.0.0.1:0, auth: { bearer_token: "\${env:TEST_API_TOKEN}" } }
service:
  extensions: [api]
  telemetry: { logs: { level: debug, encoding: json } }
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    logs: { exporters: [otlphttp/backend] }
`,
  );
  const collector = await spawnCollector(file, {
    env: { TEST_INGEST_TOKEN: INGEST_TOKEN, TEST_API_TOKEN: API_TOKEN, TEST_HEADER_SECRET: HEADER_SECRET },
  });
  // Requests with wrong and right tokens, and one that names the secret itself in its body.
  const otlp = (authorization: string, body: string) =>
    fetch(collector.otlpUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body });
  expect((await otlp(`Bearer ${API_TOKEN}`, '{}')).status).toBe(401);
  expect((await otlp(`Bearer ${INGEST_TOKEN}`, `{"resourceSpans": "${INGEST_TOKEN}"}`)).status).toBe(400);
  expect((await fetch(`${collector.apiUrl}/api/v1/stats`, { headers: { authorization: 'Bearer x' } })).status).toBe(
    401,
  );
  expect(
    (await fetch(`${collector.apiUrl}/api/v1/stats`, { headers: { authorization: `Bearer ${API_TOKEN}` } })).status,
  ).toBe(200);

  const lines = await stop(collector);
  expect(lines.length).toBeGreaterThan(3);
  const records = lines.map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`stderr line ${index + 1} is not JSON: ${line}`);
    }
  });
  for (const record of records) {
    expect(['debug', 'info', 'warn', 'error']).toContain(record.level);
    expect(typeof record.msg).toBe('string');
    expect(Number.isNaN(Date.parse(String(record.time)))).toBe(false);
  }
  // Refusals are logged at debug, with their reason as a field.
  expect(records).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        level: 'debug',
        msg: 'otlp receiver: refused spans',
        reason: 'auth',
        protocol: 'http',
      }),
    ]),
  );
  const messages = records.map((record) => String(record.msg));
  expect(messages).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^OTLP\/HTTP receiver listening on http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/),
      expect.stringMatching(/^API listening on http:\/\/127\.0\.0\.1:\d+$/),
      expect.stringMatching(/^evalon collector running with /),
      'SIGTERM: shutting down',
      expect.stringMatching(/^configuration: .*x-note contains \$\{NOTE\}, which is not expanded/),
    ]),
  );
  const log = collector.log();
  for (const secret of [INGEST_TOKEN, API_TOKEN, HEADER_SECRET]) expect(log).not.toContain(secret);
});

it('hides info lines at level warn and still writes the warnings', async () => {
  const port = await freePort();
  const file = configFile(
    (dir) => `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
processors:
  interactions:
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
extensions:
  api: { endpoint: "0.0.0.0:${port}" }
service:
  extensions: [api]
  telemetry: { logs: { level: warn, encoding: json } }
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
  );
  const collector = spawnCollectorQuietly(file);
  await pollUntil(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok ? true : undefined), {
    what: 'the collector to be ready',
  });
  const lines = await stop(await collector);
  const records = lines.map((line) => JSON.parse(line) as { level: string; msg: string });
  expect(records.map((record) => record.level)).not.toContain('info');
  expect(records).toEqual([
    {
      level: 'warn',
      time: expect.any(String),
      msg:
        `extensions::api: listening on 0.0.0.0:${port} without auth::bearer_token: anyone who can reach the port ` +
        'can use it (set auth::bearer_token or tls::client_ca_file, see docs/security.md)',
    },
  ]);
});

it('logs why it cannot start as a JSON line, without the PostgreSQL password', async () => {
  const port = await freePort(); // nothing listens there
  const password = 'pg-secret-2b3c4d';
  const file = configFile(
    () => `receivers:
  otlp:
processors:
  interactions:
  evaluation:
    ledger: { postgres: { url: "postgres://evalon:${password}@127.0.0.1:${port}/evalon" } }
service:
  telemetry: { logs: { encoding: json } }
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
  );
  const collector = await spawnCollectorQuietly(file);
  expect(await collector.exited).toBe(1);
  const lines = collector
    .log()
    .split('\n')
    .filter((line) => line !== '');
  const records = lines.map((line) => JSON.parse(line) as { level: string; msg: string });
  expect(records.at(-1)).toMatchObject({
    level: 'error',
    msg: expect.stringContaining(`ledger postgres://evalon@127.0.0.1:${port}/evalon: cannot connect`),
  });
  expect(collector.log()).not.toContain(password);
});

it('writes JSON lines only when it cannot start because the gRPC port is taken, grpc-js lines included', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as { port: number };
  try {
    const file = configFile(
      (dir) => `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0 }
      grpc: { endpoint: 127.0.0.1:${port} }
processors:
  interactions:
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
service:
  telemetry: { logs: { encoding: json } }
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
`,
    );
    const collector = await spawnCollectorQuietly(file);
    expect(await collector.exited).toBe(1);
    const lines = collector
      .log()
      .split('\n')
      .filter((line) => line !== '');
    const records = lines.map((line, index) => {
      try {
        return JSON.parse(line) as { level: string; msg: string };
      } catch {
        throw new Error(`stderr line ${index + 1} is not JSON: ${line}`);
      }
    });
    expect(records.at(-1)).toMatchObject({
      level: 'error',
      msg: expect.stringMatching(
        new RegExp(`^receivers::otlp::protocols::grpc::endpoint: cannot listen on 127\\.0\\.0\\.1:${port}`),
      ),
    });
  } finally {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  }
});

/** Starts the CLI collector without waiting for its info lines (a warn-level log has none). */
async function spawnCollectorQuietly(file: string): Promise<CollectorProcess> {
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const main = fileURLToPath(new URL('../../collector/cli/main.ts', import.meta.url));
  const child = spawn(process.execPath, [main, 'collector', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, otlpUrl: '', apiUrl: '', log: () => log, exited };
}
