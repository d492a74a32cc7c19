/**
 * TLS everywhere, with certificates made for the test (a CA, a server leaf for 127.0.0.1, client
 * leaves): the official OpenTelemetry exporters send over OTLP/HTTP and OTLP/gRPC with TLS and the
 * interaction is recorded; with `client_ca_file` (mutual TLS), a client without a certificate
 * signed by that CA is refused and one with it is accepted; the API and the Prometheus endpoint
 * answer a real HTTPS client; a TLS file that disappears before startup stops the collector with
 * its YAML key and file named.
 */
import { credentials as grpcCredentials } from '@grpc/grpc-js';
import { context, trace, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../collector/config/index.ts';
import { silentLogger } from '../../collector/logger.ts';
import { CollectorStartError, startCollector, type RunningCollector } from '../../collector/service.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { createTestCertificates, type TestCertificates } from '../helpers/certificates.ts';
import { pollUntil } from '../helpers/poll.ts';

const TOKEN = 'tls-api-token-1c2d';
let certs: TestCertificates;
const dirs: string[] = [];

beforeAll(() => {
  certs = createTestCertificates();
});
afterAll(() => {
  certs.remove();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A collector whose receivers, API and Prometheus endpoint all serve TLS; `mutual` adds client_ca_file. */
function tlsConfigYaml(dir: string, mutual: boolean): string {
  const tls = `{ cert_file: ${certs.server.certFile}, key_file: ${certs.server.keyFile}${
    mutual ? `, client_ca_file: ${certs.ca.certFile}` : ''
  } }`;
  return `receivers:
  otlp:
    protocols:
      http: { endpoint: 127.0.0.1:0, tls: ${tls} }
      grpc: { endpoint: 127.0.0.1:0, tls: ${tls} }
processors:
  interactions: { settle: 100ms, decision_wait: 3s }
  evaluation:
    ledger: { sqlite: { path: ${join(dir, 'ledger.db')} } }
exporters:
  prometheus: { endpoint: 127.0.0.1:0, tls: ${tls} }
extensions:
  api: { endpoint: 127.0.0.1:0, auth: { bearer_token: ${TOKEN} }, tls: ${tls} }
service:
  extensions: [api]
  pipelines:
    traces: { receivers: [otlp], processors: [interactions, evaluation] }
    metrics: { exporters: [prometheus] }
`;
}

async function startTlsCollector(mutual: boolean): Promise<RunningCollector> {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-tls-e2e-'));
  dirs.push(dir);
  const file = join(dir, 'otel-config.yaml');
  writeFileSync(file, tlsConfigYaml(dir, mutual));
  return startCollector(loadConfig([file]).config, { logger: silentLogger });
}

/** A GET over HTTPS with Node's client: status and body. */
function httpsGet(
  url: string,
  options: { ca?: Buffer; cert?: Buffer; key?: Buffer; token?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = options.token ? { authorization: `Bearer ${options.token}` } : {};
    const { token: _token, ...tls } = options;
    request(url, { headers, ...tls }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

function runAgent(tracer: Tracer, question: string): string {
  const agent = tracer.startSpan('invoke_agent support-agent', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'support-agent',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
    },
  });
  tracer
    .startSpan(
      'chat claude',
      { attributes: { 'gen_ai.operation.name': 'chat' } },
      trace.setSpan(context.active(), agent),
    )
    .end();
  agent.setAttribute(
    'gen_ai.output.messages',
    JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'It has shipped.' }] }]),
  );
  agent.end();
  return `${agent.spanContext().traceId}-${agent.spanContext().spanId}`;
}

/** Sends one interaction through `exporter`; resolves with the export's result. */
async function send(
  exporter: SpanExporter,
  question: string,
): Promise<{ result: ExportResult; interactionId: string }> {
  let result: ExportResult | undefined;
  const recording: SpanExporter = {
    export(spans: ReadableSpan[], done: (outcome: ExportResult) => void) {
      exporter.export(spans, (outcome) => {
        result = outcome;
        done(outcome);
      });
    },
    shutdown: () => exporter.shutdown(),
  };
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: recording })] });
  const interactionId = runAgent(provider.getTracer('tls-test'), question);
  // A refused export rejects the flush; what the exporter answered is in `result`.
  await provider.forceFlush().catch(() => {});
  await provider.shutdown().catch(() => {});
  return { result: result!, interactionId };
}

async function interactionsOver(collector: RunningCollector): Promise<InteractionRecord[]> {
  const api = collector.apiAddress!;
  const { status, body } = await httpsGet(`https://127.0.0.1:${api.port}/api/v1/interactions?limit=1000`, {
    ca: certs.ca.cert,
    token: TOKEN,
  });
  expect(status).toBe(200);
  return (JSON.parse(body) as { interactions: InteractionRecord[] }).interactions;
}

const waitForRecord = (collector: RunningCollector, interactionId: string) =>
  pollUntil(async () => (await interactionsOver(collector)).find((r) => r.interactionId === interactionId), {
    what: `interaction ${interactionId}`,
  });

describe('a collector serving TLS', () => {
  let collector: RunningCollector;
  beforeAll(async () => {
    collector = await startTlsCollector(false);
  });
  afterAll(async () => {
    await collector?.shutdown();
  });

  it('records an interaction sent by the official OTLP/HTTP exporter over HTTPS', async () => {
    const url = `https://127.0.0.1:${collector.otlpAddress!.port}/v1/traces`;
    const { result, interactionId } = await send(
      new ProtoExporter({ url, httpAgentOptions: { ca: certs.ca.cert } }),
      'Where is order A-17? (https)',
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    const record = await waitForRecord(collector, interactionId);
    expect(record).toMatchObject({ agentId: 'support-agent', finalResponseText: 'It has shipped.' });
  });

  it('records an interaction sent by the official OTLP/gRPC exporter over TLS', async () => {
    const { result, interactionId } = await send(
      new GrpcExporter({
        url: `https://127.0.0.1:${collector.otlpGrpcAddress!.port}`,
        credentials: grpcCredentials.createSsl(certs.ca.cert),
      }),
      'Where is order A-17? (grpc tls)',
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(await waitForRecord(collector, interactionId)).toMatchObject({ agentId: 'support-agent' });
  });

  it('refuses a client that does not trust the collector, and plaintext on the TLS port', async () => {
    const url = `https://127.0.0.1:${collector.otlpAddress!.port}/v1/traces`;
    const untrusting = await send(new ProtoExporter({ url, timeoutMillis: 2000 }), 'untrusted');
    expect(untrusting.result.code).toBe(ExportResultCode.FAILED);
    const plain = await send(
      new ProtoExporter({ url: url.replace('https:', 'http:'), timeoutMillis: 2000 }),
      'plaintext',
    );
    expect(plain.result.code).toBe(ExportResultCode.FAILED);
    // An interaction sent after them is recorded; had they been taken, they would be by then too.
    const control = await send(new ProtoExporter({ url, httpAgentOptions: { ca: certs.ca.cert } }), 'control');
    await waitForRecord(collector, control.interactionId);
    const ids = new Set((await interactionsOver(collector)).map((r) => r.interactionId));
    expect([ids.has(untrusting.interactionId), ids.has(plain.interactionId)]).toEqual([false, false]);
  });

  it('serves the API over HTTPS to a client that trusts its CA, with the token', async () => {
    const base = `https://127.0.0.1:${collector.apiAddress!.port}`;
    expect(await httpsGet(`${base}/healthz`, { ca: certs.ca.cert })).toEqual({
      status: 200,
      body: '{"status":"ok"}',
    });
    expect((await httpsGet(`${base}/api/v1/stats`, { ca: certs.ca.cert })).status).toBe(401);
    expect((await httpsGet(`${base}/api/v1/stats`, { ca: certs.ca.cert, token: TOKEN })).status).toBe(200);
    await expect(httpsGet(`${base}/healthz`)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });

  it('serves the Prometheus scrape over HTTPS', async () => {
    const scrape = await httpsGet(`https://127.0.0.1:${collector.prometheusAddress!.port}/metrics`, {
      ca: certs.ca.cert,
    });
    expect(scrape.status).toBe(200);
    expect(scrape.body).toContain('evalon_spans_received_total');
  });
});

describe('a collector requiring client certificates (mutual TLS)', () => {
  let collector: RunningCollector;
  beforeAll(async () => {
    collector = await startTlsCollector(true);
  });
  afterAll(async () => {
    await collector?.shutdown();
  });

  const httpExporter = (client?: { cert: Buffer; key: Buffer }) =>
    new ProtoExporter({
      url: `https://127.0.0.1:${collector.otlpAddress!.port}/v1/traces`,
      timeoutMillis: 2000,
      httpAgentOptions: { ca: certs.ca.cert, ...(client ? { cert: client.cert, key: client.key } : {}) },
    });
  const grpcExporter = (client?: { cert: Buffer; key: Buffer }) =>
    new GrpcExporter({
      url: `https://127.0.0.1:${collector.otlpGrpcAddress!.port}`,
      timeoutMillis: 2000,
      credentials: client
        ? grpcCredentials.createSsl(certs.ca.cert, client.key, client.cert)
        : grpcCredentials.createSsl(certs.ca.cert),
    });
  const apiGet = (client?: { cert: Buffer; key: Buffer }) =>
    httpsGet(`https://127.0.0.1:${collector.apiAddress!.port}/api/v1/interactions?limit=1000`, {
      ca: certs.ca.cert,
      token: TOKEN,
      ...client,
    });

  it('accepts OTLP/HTTP and OTLP/gRPC from clients with a certificate signed by client_ca_file', async () => {
    const overHttp = await send(httpExporter(certs.client), 'mtls http');
    const overGrpc = await send(grpcExporter(certs.client), 'mtls grpc');
    expect([overHttp.result.code, overGrpc.result.code]).toEqual([ExportResultCode.SUCCESS, ExportResultCode.SUCCESS]);
    const records = await pollUntil(async () => {
      const { status, body } = await apiGet(certs.client);
      if (status !== 200) return undefined;
      const ids = (JSON.parse(body) as { interactions: InteractionRecord[] }).interactions.map((r) => r.interactionId);
      return ids.includes(overHttp.interactionId) && ids.includes(overGrpc.interactionId) ? ids : undefined;
    });
    expect(records).toEqual(expect.arrayContaining([overHttp.interactionId, overGrpc.interactionId]));
  });

  it('refuses clients without a certificate, or with one another CA signed, during the handshake', async () => {
    const refused = [
      await send(httpExporter(), 'no client certificate (http)'),
      await send(httpExporter(certs.otherClient), 'foreign client certificate (http)'),
      await send(grpcExporter(), 'no client certificate (grpc)'),
      await send(grpcExporter(certs.otherClient), 'foreign client certificate (grpc)'),
    ];
    expect(refused.map(({ result }) => result.code)).toEqual(Array(4).fill(ExportResultCode.FAILED));
    await expect(apiGet()).rejects.toThrow();
    await expect(apiGet(certs.otherClient)).rejects.toThrow();
    // An interaction sent after them is recorded; had they been taken, they would be by then too.
    const control = await send(httpExporter(certs.client), 'control');
    const ids = await pollUntil(async () => {
      const { body } = await apiGet(certs.client);
      const found = new Set(
        (JSON.parse(body) as { interactions: InteractionRecord[] }).interactions.map((r) => r.interactionId),
      );
      return found.has(control.interactionId) ? found : undefined;
    });
    for (const { interactionId } of refused) expect(ids.has(interactionId)).toBe(false);
  });
});

it('stops startup naming the YAML key and the file when a TLS file is gone by then', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalon-tls-e2e-'));
  dirs.push(dir);
  const key = join(dir, 'server.key');
  writeFileSync(key, certs.server.key);
  const file = join(dir, 'otel-config.yaml');
  writeFileSync(file, tlsConfigYaml(dir, false).replace(`key_file: ${certs.server.keyFile}`, `key_file: ${key}`));
  const { config } = loadConfig([file]);
  unlinkSync(key);
  const started = startCollector(config, { logger: silentLogger });
  await expect(started).rejects.toThrow(CollectorStartError);
  await expect(started).rejects.toThrow(`receivers::otlp::protocols::http::tls::key_file: ${key} does not exist`);
});
