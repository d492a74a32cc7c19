/**
 * A stand-in OTLP/HTTP trace receiver for the instrumentation's unit tests: it records what the
 * exporters send (decoding OTLP/JSON bodies) and answers 200, or a status set by the test.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface SinkRequest {
  path: string;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface SinkSpan {
  name: string;
  traceId: string;
  spanId: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpSink {
  readonly url: string;
  readonly requests: SinkRequest[];
  /** Spans of every OTLP/JSON request received so far. */
  spans(): SinkSpan[];
  /** Answer every later request with this status. */
  respondWith(status: number): void;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const requests: SinkRequest[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', contentType, headers: req.headers, body });
      res.writeHead(status, { 'content-type': contentType || 'application/json' });
      res.end(contentType.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      requests
        .filter((request) => request.contentType.includes('json'))
        .flatMap((request) => spansOf(JSON.parse(request.body.toString('utf8')))),
    respondWith(next) {
      status = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type OtlpKeyValue = { key: string; value: Record<string, unknown> };

function spansOf(request: {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{ name: string; traceId: string; spanId: string; attributes?: OtlpKeyValue[] }>;
    }>;
  }>;
}): SinkSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        name: span.name,
        traceId: span.traceId,
        spanId: span.spanId,
        attributes: attributesOf(span.attributes),
        resource: attributesOf(resourceSpans.resource?.attributes),
      })),
    ),
  );
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = anyValue(value);
  return out;
}

function anyValue(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value)
    return ((value.arrayValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(anyValue);
  return undefined;
}
