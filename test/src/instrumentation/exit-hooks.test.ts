/**
 * Flush on exit, in real child processes: the span reaches the receiver when the process ends on
 * its own, when it is sent SIGTERM (and it still ends by that signal), and with the
 * `node --import register.ts` form configured from the environment alone.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpSink, type OtlpSink } from './helpers/otlp-sink.ts';

const CHILD = fileURLToPath(new URL('./fixtures/exiting-agent.ts', import.meta.url));
const REGISTER_HOOK = fileURLToPath(new URL('../../../src/instrumentation/register.ts', import.meta.url));

let sink: OtlpSink;
beforeAll(async () => {
  sink = await startOtlpSink();
});
afterAll(async () => {
  await sink.close();
});

interface ChildRun {
  interactionId: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
}

function runChild(args: string[], env: Record<string, string>): ChildRun {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const interactionId = new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n')) resolve(line.trim());
    });
    child.on('exit', () => reject(new Error(`child printed nothing; stderr: ${stderr}`)));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  void exited.finally(() => clearTimeout(timer));
  return { interactionId, exited, kill: (signal) => child.kill(signal) };
}

const received = (interactionId: string) =>
  sink.spans().find((span) => `${span.traceId}-${span.spanId}` === interactionId);

describe('flush on exit', () => {
  it('exports the last spans when the process ends on its own', async () => {
    const child = runChild([CHILD], { SINK_URL: sink.url });
    const interactionId = await child.interactionId;
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(received(interactionId)?.attributes['gen_ai.agent.id']).toBe('exiting-agent');
  });

  it('exports on SIGTERM, then ends by that signal as it would have', async () => {
    const child = runChild([CHILD, '--wait'], { SINK_URL: sink.url });
    const interactionId = await child.interactionId;
    child.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(received(interactionId)).toBeDefined();
  });

  it('works as a node --import hook configured by the standard variables', async () => {
    const child = runChild(['--import', REGISTER_HOOK, CHILD], {
      SINK_URL: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'hooked-service',
      OTEL_BSP_SCHEDULE_DELAY: '60000',
    });
    const interactionId = await child.interactionId;
    expect((await child.exited).code).toBe(0);
    expect(received(interactionId)?.resource['service.name']).toBe('hooked-service');
  });
});
