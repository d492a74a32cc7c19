/**
 * `register()`: the OpenTelemetry Node SDK sending OTLP/HTTP to an endpoint (a stand-in receiver
 * here; the end-to-end tests use the real collector), the standard variables, idempotence, content
 * capture, and staying harmless when the collector is down or the setup is wrong.
 */
import { createServer, type Socket } from 'node:net';
import { diag, DiagLogLevel, trace, type DiagLogger } from '@opentelemetry/api';
import { InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { invokeAgent, register, type Telemetry } from '../../../src/instrumentation/index.ts';
import { ANTHROPIC_CONTENT_MODE_ENV } from '../../../src/instrumentation/register-telemetry.ts';
import { startOtlpSink, type OtlpSink } from './helpers/otlp-sink.ts';

let sink: OtlpSink;
let telemetry: Telemetry | undefined;
const warnings: string[] = [];
const testLogger: DiagLogger = {
  error: (message) => warnings.push(message),
  warn: (message) => warnings.push(message),
  info: () => {},
  debug: () => {},
  verbose: () => {},
};

beforeAll(async () => {
  sink = await startOtlpSink();
  diag.setLogger(testLogger, DiagLogLevel.WARN);
});
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
  sink.requests.length = 0;
  sink.respondWith(200);
  warnings.length = 0;
  vi.unstubAllEnvs();
});
afterAll(async () => {
  await sink.close();
  diag.disable();
});

describe('register', () => {
  it('sends the agent spans to the endpoint over OTLP/HTTP, with the service name', async () => {
    telemetry = register({
      endpoint: sink.url,
      protocol: 'http/json',
      serviceName: 'support-service',
      shutdownOnExit: false,
    });
    expect(telemetry.active).toBe(true);
    expect(telemetry.endpoint).toBe(`${sink.url}/v1/traces`);
    const reply = await invokeAgent({ id: 'support-agent', roles: ['customer-facing'] }, () => 'hello');
    await telemetry.forceFlush();
    const [span] = sink.spans();
    expect(`${span.traceId}-${span.spanId}`).toBe(reply.interactionId);
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'evalon.agent.roles': ['customer-facing'],
    });
    expect(span.resource['service.name']).toBe('support-service');
    expect(sink.requests[0].path).toBe('/v1/traces');
    expect(telemetry.stats()).toMatchObject({ exportedSpans: 1, failedSpans: 0, droppedSpans: 0, queuedSpans: 0 });
  });

  it(
    'sends OTLP/protobuf by default, and honours OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME and ' +
      'OTEL_EXPORTER_OTLP_HEADERS',
    async () => {
      vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', sink.url);
      vi.stubEnv('OTEL_SERVICE_NAME', 'from-env');
      vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'authorization=Bearer s3cret');
      telemetry = register({ shutdownOnExit: false });
      expect(telemetry.endpoint).toBe(`${sink.url}/v1/traces`);
      await invokeAgent({ id: 'a' }, () => 'x');
      await telemetry.forceFlush();
      expect(sink.requests).toHaveLength(1);
      expect(sink.requests[0].contentType).toBe('application/x-protobuf');
      expect(sink.requests[0].headers.authorization).toBe('Bearer s3cret');
      expect(sink.requests[0].body.includes(Buffer.from('from-env'))).toBe(true);
    },
  );

  it('is idempotent: a second call returns the first registration; shutdown can be called again', async () => {
    telemetry = register({ exporter: new InMemorySpanExporter(), shutdownOnExit: false });
    expect(register()).toBe(telemetry);
    expect(register({ serviceName: 'other' })).toBe(telemetry);
    expect(warnings.some((w) => w.includes('register() called again'))).toBe(true);
    await telemetry.shutdown();
    await telemetry.shutdown();
    await telemetry.forceFlush();
    // After shutdown a new registration takes over the process again.
    const exporter = new InMemorySpanExporter();
    telemetry = register({ exporter, shutdownOnExit: false });
    expect(telemetry.active).toBe(true);
    await invokeAgent({ id: 'again' }, () => 'x');
    await telemetry.forceFlush();
    expect(exporter.getFinishedSpans().map((span) => span.attributes['gen_ai.agent.id'])).toEqual(['again']);
  });

  it(
    'with captureContent, records agent content and turns ' + 'on the Anthropic SDK content mode until shutdown',
    async () => {
      vi.stubEnv(ANTHROPIC_CONTENT_MODE_ENV, undefined);
      const exporter = new InMemorySpanExporter();
      telemetry = register({ exporter, captureContent: true, shutdownOnExit: false });
      expect(process.env[ANTHROPIC_CONTENT_MODE_ENV]).toBe('content');
      expect(telemetry.captureContent).toBe(true);
      await invokeAgent({ id: 'a', input: 'question' }, () => 'answer');
      await telemetry.forceFlush();
      expect(exporter.getFinishedSpans()[0].attributes['gen_ai.input.messages']).toContain('question');
      await telemetry.shutdown();
      expect(process.env[ANTHROPIC_CONTENT_MODE_ENV]).toBeUndefined();
    },
  );

  it('leaves an explicit Anthropic content mode alone, and captures nothing by default', async () => {
    vi.stubEnv(ANTHROPIC_CONTENT_MODE_ENV, 'metadata_only');
    const exporter = new InMemorySpanExporter();
    telemetry = register({ exporter, captureContent: true, shutdownOnExit: false });
    expect(process.env[ANTHROPIC_CONTENT_MODE_ENV]).toBe('metadata_only');
    await telemetry.shutdown();

    vi.stubEnv(ANTHROPIC_CONTENT_MODE_ENV, undefined);
    const second = new InMemorySpanExporter();
    telemetry = register({ exporter: second, shutdownOnExit: false });
    expect(telemetry.captureContent).toBe(false);
    expect(process.env[ANTHROPIC_CONTENT_MODE_ENV]).toBeUndefined();
    await invokeAgent({ id: 'a', input: 'question' }, () => 'answer');
    await telemetry.forceFlush();
    expect(second.getFinishedSpans()[0].attributes['gen_ai.input.messages']).toBeUndefined();
  });

  it('takes OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT as the content default', async () => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'true');
    telemetry = register({ exporter: new InMemorySpanExporter(), shutdownOnExit: false });
    expect(telemetry.captureContent).toBe(true);
  });

  it('keeps the agent answering when the collector is down: flush resolves and failures are counted', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_TIMEOUT', '300');
    const closed = await startOtlpSink();
    const url = closed.url;
    await closed.close();
    telemetry = register({ endpoint: url, shutdownOnExit: false });
    const reply = await invokeAgent({ id: 'a' }, () => 'still here');
    expect(reply.result).toBe('still here');
    expect(reply.interactionId).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}$/);
    await expect(telemetry.forceFlush()).resolves.toBeUndefined();
    expect(telemetry.stats()).toMatchObject({ failedSpans: 1, exportedSpans: 0 });
  });

  it('counts spans the collector rejects (HTTP 400) as failed', async () => {
    sink.respondWith(400);
    telemetry = register({ endpoint: sink.url, protocol: 'http/json', shutdownOnExit: false });
    await invokeAgent({ id: 'a' }, () => 'x');
    await telemetry.forceFlush();
    expect(telemetry.stats()).toMatchObject({ failedSpans: 1, exportedSpans: 0 });
  });

  it('bounds shutdown when the collector accepts connections but never answers', async () => {
    const sockets = new Set<Socket>();
    const hanging = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const { port } = hanging.address() as { port: number };
    try {
      telemetry = register({ endpoint: `http://127.0.0.1:${port}`, shutdownOnExit: false, shutdownTimeoutMillis: 300 });
      await invokeAgent({ id: 'a' }, () => 'x');
      const started = Date.now();
      await telemetry.shutdown();
      expect(Date.now() - started).toBeLessThan(3000);
      expect(warnings.some((w) => w.includes('still exporting after 300 ms'))).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it('never throws on bad options: it warns and falls back', async () => {
    telemetry = register({ endpoint: 'not a url', maxQueueSize: -5, shutdownOnExit: false } as never);
    expect(telemetry.endpoint).toBe('http://localhost:4318/v1/traces');
    expect(warnings.join('\n')).toMatch(/endpoint: not an http\(s\) URL/);
    expect(warnings.join('\n')).toMatch(/maxQueueSize/);
    await telemetry.shutdown();
    telemetry = register(null as never);
    expect(telemetry.active).toBe(true);
  });

  it('is inert with OTEL_SDK_DISABLED, and agents still run', async () => {
    vi.stubEnv('OTEL_SDK_DISABLED', 'true');
    telemetry = register({ endpoint: sink.url, shutdownOnExit: false });
    expect(telemetry.active).toBe(false);
    const reply = await invokeAgent({ id: 'a' }, () => 'ok');
    expect(reply).toEqual({ result: 'ok', interactionId: undefined });
    await telemetry.forceFlush();
    expect(sink.requests).toHaveLength(0);
  });

  it('exports nothing with OTEL_TRACES_EXPORTER=none, and agents run untraced', async () => {
    vi.stubEnv('OTEL_TRACES_EXPORTER', 'none');
    telemetry = register({ endpoint: sink.url, shutdownOnExit: false });
    expect(telemetry.endpoint).toBeUndefined();
    const reply = await invokeAgent({ id: 'a' }, () => 'ok');
    expect(reply).toEqual({ result: 'ok', interactionId: undefined });
    await telemetry.forceFlush();
    expect(sink.requests).toHaveLength(0);
  });

  it('says so, and changes nothing, when the application already registered its own SDK', async () => {
    const exporter = new InMemorySpanExporter();
    const own = new TracerProvider({ spanProcessors: [] });
    trace.setGlobalTracerProvider(own);
    try {
      telemetry = register({ exporter, shutdownOnExit: false });
      expect(telemetry.active).toBe(false);
      expect(warnings.some((w) => w.includes('another OpenTelemetry SDK is already registered'))).toBe(true);
      await telemetry.shutdown();
      expect((trace.getTracerProvider() as unknown as { getDelegate(): unknown }).getDelegate()).toBe(own);
    } finally {
      trace.disable();
    }
  });
});
