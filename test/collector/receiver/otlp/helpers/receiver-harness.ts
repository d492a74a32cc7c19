/** Starts a real receiver on an ephemeral port with an in-memory consumer, and posts to it. */
import { request } from 'node:http';
import {
  createOtlpReceiver,
  type OtlpReceiver,
  type OtlpReceiverConfig,
} from '../../../../../collector/receiver/otlp/index.ts';
import { InMemorySpanConsumer } from '../../../../helpers/in-memory-span-consumer.ts';

export interface ReceiverHarness {
  receiver: OtlpReceiver;
  consumer: InMemorySpanConsumer;
  url: string;
  warnings: string[];
  received: { accepted: number; rejected: number }[];
  post(body: Uint8Array | string, headers: Record<string, string>, path?: string): Promise<HarnessResponse>;
}

export interface HarnessResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  json(): OtlpJsonReply;
}

/** The JSON body of a reply: an ExportTraceServiceResponse, or a google.rpc.Status on an error. */
export interface OtlpJsonReply {
  /** Absent when every span was accepted. */
  partialSuccess?: { rejectedSpans?: string; errorMessage?: string };
  code?: number;
  message?: string;
}

export async function startReceiver(overrides: Partial<OtlpReceiverConfig> = {}): Promise<ReceiverHarness> {
  const consumer = new InMemorySpanConsumer();
  const warnings: string[] = [];
  const received: { accepted: number; rejected: number }[] = [];
  const receiver = createOtlpReceiver(
    { host: '127.0.0.1', port: 0, maxRequestBodyBytes: 4 * 1024 * 1024, ...overrides },
    consumer,
    {
      onReceived: (accepted, rejected) => received.push({ accepted, rejected }),
      logger: { warn: (message) => warnings.push(message) },
    },
  );
  await receiver.start();
  const { port } = receiver.address();
  const base = `http://127.0.0.1:${port}`;
  return {
    receiver,
    consumer,
    url: `${base}/v1/traces`,
    warnings,
    received,
    async post(body, headers, path = '/v1/traces') {
      const response = await fetch(`${base}${path}`, { method: 'POST', body, headers });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return {
        status: response.status,
        headers: response.headers,
        body: bytes,
        json: () => JSON.parse(Buffer.from(bytes).toString('utf8')),
      };
    },
  };
}

/** Posts with chunked transfer encoding (no Content-Length), as a streaming client would. */
export function postChunked(
  url: string,
  headers: Record<string, string>,
  chunks: Buffer[],
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    (async () => {
      for (const chunk of chunks) {
        if (!req.write(chunk)) await new Promise((drain) => req.once('drain', drain));
      }
      req.end();
    })().catch(reject);
  });
}
