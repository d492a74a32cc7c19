/**
 * Child processes for the packaging tests: npm, node and the packaged collector, run outside any
 * enclosing `npm test` environment, with their output collected.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** How a child process ended: its exit code and everything it wrote. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment without the npm_* variables of an enclosing `npm test`, which would point nested
 * npm runs at the checkout.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs `command` in `cwd` (killed after the timeout, 120 s by default): its exit code and output. */
export function run(
  command: string,
  args: string[],
  cwd: string,
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${command} ${args.join(' ')} did not finish within ${options.timeoutMs ?? 120_000} ` +
            `ms:\n${stdout}\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like `run`, but throws with the output unless the command exits with 0. */
export async function runOk(
  command: string,
  args: string[],
  cwd: string,
  options?: { env?: Record<string, string>; timeoutMs?: number },
): Promise<Run> {
  const result = await run(command, args, cwd, options);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** The OTLP and API addresses the packaged collector logs once it listens. */
export function listeningAddresses(child: ChildProcess): Promise<{ otlpUrl: string; apiUrl: string }> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(
      () => reject(new Error(`the packaged collector did not start within 20 s:\n${log}`)),
      20_000,
    );
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const otlpUrl = /receiver listening on (http:\/\/\S+\/v1\/traces)/.exec(log)?.[1];
      const apiUrl = /API listening on (http:\/\/\S+)/.exec(log)?.[1];
      if (otlpUrl && apiUrl) {
        clearTimeout(timer);
        resolve({ otlpUrl, apiUrl });
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the packaged collector exited with ${code} before listening:\n${log}`));
    });
  });
}
