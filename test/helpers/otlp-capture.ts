/**
 * A local OTLP/HTTP server for the exporter tests: it records what Evalon's exporters send on
 * `/v1/traces` (decoded by the collector's own receiver decoders, JSON or protobuf), `/v1/logs`
 * (OTLP/JSON, decoded here with the receiver's attribute reader) and `/v1/metrics` (kept as
 * parsed JSON), and answers 200 with an empty response, or a status the test sets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { Attributes, SpanData } from '../../collector/model/span.ts';
import { readAttributes } from '../../collector/receiver/otlp/decode-json-values.ts';
import { decodeTraceRequest } from '../../collector/receiver/otlp/decode.ts';

export interface CapturedLogRecord {
  eventName?: string;
  traceId?: string;
  spanId?: string;
  flags?: number;
  timeUnixNano?: number;
  severityNumber?: number;
  severityText?: string;
  attributes: Attributes;
  resource: Attributes;
  scopeName?: string;
  /** The record as sent (OTLP/JSON), to check value types (`doubleValue` vs `intValue`). */
  raw: Record<string, unknown>;
}

export interface CapturedRequest {
  path: string;
  contentType: string;
  contentEncoding?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Serve HTTPS with this certificate; with `ca`, clients must present a certificate it signed. */
export interface CaptureTls {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
}

export interface OtlpCapture {
  /** Base URL, e.g. `http://127.0.0.1:PORT` (`https://` with TLS): the exporter's `endpoint`. */
  readonly url: string;
  readonly requests: CapturedRequest[];
  readonly spans: SpanData[];
  readonly logs: CapturedLogRecord[];
  /** Parsed OTLP/JSON ExportMetricsServiceRequest bodies. */
  readonly metrics: Array<Record<string, unknown>>;
  /** The OTLP/JSON spans as sent (attributes as `{ key, value: { doubleValue } }`), to check value types. */
  readonly rawSpans: Array<Record<string, unknown>>;
  respondWith(status: number): void;
  close(): Promise<void>;
}

export async function startOtlpCapture(options: { tls?: CaptureTls } = {}): Promise<OtlpCapture> {
  const requests: CapturedRequest[] = [];
  const spans: SpanData[] = [];
  const logs: CapturedLogRecord[] = [];
  const metrics: Array<Record<string, unknown>> = [];
  const rawSpans: Array<Record<string, unknown>> = [];
  let status = 200;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentEncoding = req.headers['content-encoding'];
      let body = Buffer.concat(chunks);
      if (contentEncoding === 'gzip') body = gunzipSync(body);
      const contentType = String(req.headers['content-type'] ?? '');
      const path = req.url ?? '';
      requests.push({ path, contentType, headers: req.headers, ...(contentEncoding ? { contentEncoding } : {}) });
      const json = contentType.includes('json');
      if (status === 200) {
        if (path === '/v1/traces') spans.push(...decodeTraceRequest(body, json ? 'json' : 'protobuf').spans);
        if (path === '/v1/traces' && json) rawSpans.push(...rawSpansOf(body));
        else if (path === '/v1/logs') logs.push(...decodeJsonLogs(json ? body : Buffer.from('{}')));
        else if (path === '/v1/metrics' && json)
          metrics.push(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      }
      res.writeHead(status, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  };
  const tls = options.tls;
  const server: Server = tls
    ? createTlsServer({ cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca, requestCert: true } : {}) }, handle)
    : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    spans,
    logs,
    metrics,
    rawSpans,
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

type Json = Record<string, unknown>;

function rawSpansOf(body: Buffer): Json[] {
  const request = JSON.parse(body.toString('utf8')) as { resourceSpans?: Array<{ scopeSpans?: Json[] }> };
  return (request.resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).flatMap((scope) => (scope.spans as Json[] | undefined) ?? []),
  );
}

function decodeJsonLogs(body: Buffer): CapturedLogRecord[] {
  const request = JSON.parse(body.toString('utf8')) as { resourceLogs?: Json[] };
  const records: CapturedLogRecord[] = [];
  for (const resourceLogs of request.resourceLogs ?? []) {
    const resource = readAttributes(
      (resourceLogs.resource as Json | undefined)?.attributes ?? [],
      'resource.attributes',
      {},
    );
    for (const scopeLogs of (resourceLogs.scopeLogs as Json[] | undefined) ?? []) {
      const scopeName = (scopeLogs.scope as Json | undefined)?.name as string | undefined;
      for (const raw of (scopeLogs.logRecords as Json[] | undefined) ?? []) {
        records.push({
          ...(typeof raw.eventName === 'string' ? { eventName: raw.eventName } : {}),
          ...(typeof raw.traceId === 'string' ? { traceId: raw.traceId.toLowerCase() } : {}),
          ...(typeof raw.spanId === 'string' ? { spanId: raw.spanId.toLowerCase() } : {}),
          ...(raw.flags !== undefined ? { flags: Number(raw.flags) } : {}),
          ...(raw.timeUnixNano !== undefined ? { timeUnixNano: Number(raw.timeUnixNano) } : {}),
          ...(raw.severityNumber !== undefined ? { severityNumber: Number(raw.severityNumber) } : {}),
          ...(typeof raw.severityText === 'string' ? { severityText: raw.severityText } : {}),
          attributes: readAttributes(raw.attributes ?? [], 'logRecord.attributes', {}),
          resource,
          ...(scopeName !== undefined ? { scopeName } : {}),
          raw,
        });
      }
    }
  }
  return records;
}
