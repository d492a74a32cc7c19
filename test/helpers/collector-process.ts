/**
 * Runs the collector as a child process through the real CLI (`node collector/cli/main.ts
 * collector --config FILE`), and reads the addresses it listens on from its log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../collector/cli/main.ts', import.meta.url));

export interface CollectorProcess {
  child: ChildProcess;
  otlpUrl: string;
  apiUrl: string;
  /** Everything the process wrote to stderr so far. */
  log(): string;
  exited: Promise<number | null>;
}

export async function spawnCollector(
  configFile: string,
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<CollectorProcess> {
  const child = spawn(process.execPath, [MAIN, 'collector', '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const addresses = await new Promise<{ otlpUrl: string; apiUrl: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`collector did not start within ${options.timeoutMs ?? 20_000} ms:\n${log}`)),
      options.timeoutMs ?? 20_000,
    );
    let otlpUrl: string | undefined;
    let apiUrl: string | undefined;
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      // Console or JSON lines alike: the URL ends at a space or at the closing quote.
      otlpUrl ??= /receiver listening on (https?:\/\/[^\s"]+\/v1\/traces)/.exec(log)?.[1];
      apiUrl ??= /API listening on (https?:\/\/[^\s"]+)/.exec(log)?.[1];
      if (otlpUrl && apiUrl) {
        clearTimeout(timer);
        resolve({ otlpUrl, apiUrl });
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`collector exited with ${code} before listening:\n${log}`));
    });
  });
  return { child, ...addresses, log: () => log, exited };
}
