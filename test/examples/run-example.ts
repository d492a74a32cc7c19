/**
 * Runs an example's CLI as a user would (`node examples/<name>/main.ts …`) and reads what it
 * prints: `answer:`, `conversation:` and `interaction:` lines.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ExampleRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The `key: value` lines of the output. */
  fields: Record<string, string>;
  elapsedMs: number;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function runExample(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ExampleRun> {
  const started = Date.now();
  // The example's own OTEL_* settings come from `env` only, never from the test process.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_') && !key.startsWith('ANTHROPIC_')),
  );
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      const fields: Record<string, string> = {};
      for (const line of stdout.split('\n')) {
        const match = /^(\w+): (.*)$/.exec(line);
        if (match) fields[match[1]] = match[2];
      }
      resolve({ code, stdout, stderr, fields, elapsedMs: Date.now() - started });
    });
  });
}

/** A loopback URL where nothing listens: a collector that is stopped. */
export async function stoppedCollectorUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
