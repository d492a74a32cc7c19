/** Start, shutdown and load-shedding of the receiver: what a pipeline owner relies on. */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ReceiverStartError, createOtlpReceiver } from '../../../../collector/receiver/otlp/index.ts';
import { encodeOtlpProtobuf } from '../../../fixtures/otlp/encode-otlp-protobuf.ts';
import { sampleRequest } from '../../../fixtures/otlp/sample-request.ts';
import { InMemorySpanConsumer } from '../../../helpers/in-memory-span-consumer.ts';
import { postChunked, startReceiver, type ReceiverHarness } from './helpers/receiver-harness.ts';

const PROTOBUF = { 'Content-Type': 'application/x-protobuf' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const config = { host: '127.0.0.1', port: 0, maxRequestBodyBytes: 1024 * 1024 };

let harness: ReceiverHarness | undefined;
afterEach(async () => {
  await harness?.receiver.shutdown();
  harness = undefined;
});

describe('receiver lifecycle', () => {
  it('reports the port the OS chose when started on port 0', async () => {
    harness = await startReceiver();
    const { host, port } = harness.receiver.address();
    expect(host).toBe('127.0.0.1');
    expect(port).toBeGreaterThan(0);
  });

  it('shuts down safely without start, and twice', async () => {
    const receiver = createOtlpReceiver(config, new InMemorySpanConsumer());
    await receiver.shutdown();
    await receiver.shutdown();
    await expect(receiver.start()).rejects.toBeInstanceOf(ReceiverStartError);

    const started = createOtlpReceiver(config, new InMemorySpanConsumer());
    await started.start();
    await Promise.all([started.shutdown(), started.shutdown()]);
    await started.shutdown();
  });

  it('fails to start on a port that is taken, naming the address', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    const receiver = createOtlpReceiver({ ...config, port }, new InMemorySpanConsumer());
    try {
      await expect(receiver.start()).rejects.toThrow(`otlp receiver: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
      await receiver.shutdown();
    } finally {
      blocker.close();
    }
  });

  it('stops accepting connections on shutdown but finishes the requests in flight', async () => {
    harness = await startReceiver();
    const release = harness.consumer.hold();
    const inFlight = harness.post(encodeOtlpProtobuf(sampleRequest()), PROTOBUF);
    await sleep(50);
    let stopped = false;
    const stopping = harness.receiver.shutdown().then(() => (stopped = true));
    await sleep(100);
    expect(stopped).toBe(false);
    await expect(fetch(harness.url, { method: 'POST', headers: PROTOBUF, body: new Uint8Array(0) })).rejects.toThrow();
    release();
    expect((await inFlight).status).toBe(200);
    await stopping;
    expect(harness.consumer.spans()).toHaveLength(4);
  });

  it('cuts a client that stalls mid-body once the shutdown grace is over', async () => {
    harness = await startReceiver({ shutdownGraceMs: 200 });
    const req = request(harness.url, { method: 'POST', headers: { ...PROTOBUF, 'Content-Length': '1000' } });
    const outcome = new Promise<string>((resolve) => {
      req.on('response', (res) => resolve(`status ${res.statusCode}`));
      req.on('error', (error) => resolve(`error ${error.message}`));
    });
    req.write(Buffer.alloc(10));
    await sleep(50);
    const started = Date.now();
    await harness.receiver.shutdown();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await outcome).toMatch(/^error /);
    expect(harness.consumer.batches).toHaveLength(0);
  });
});

describe('load shedding', () => {
  it('answers 429 with Retry-After before reading the body when too many bytes are in flight', async () => {
    harness = await startReceiver({ maxInFlightBytes: 16 * 1024 });
    const release = harness.consumer.hold();
    // 12 KB of an unknown field: each request is valid and takes most of the 16 KB budget.
    const big = Buffer.concat([encodeOtlpProtobuf(sampleRequest()), encodeUnknownField(12 * 1024)]);
    const first = harness.post(big, PROTOBUF);
    await sleep(50);
    const second = await harness.post(big, PROTOBUF);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    release();
    expect((await first).status).toBe(200);
    expect((await harness.post(big, PROTOBUF)).status).toBe(200);
  });

  it('answers 429 mid-body when a request without Content-Length grows past the budget', async () => {
    harness = await startReceiver({ maxInFlightBytes: 16 * 1024 });
    const release = harness.consumer.hold();
    const big = Buffer.concat([encodeOtlpProtobuf(sampleRequest()), encodeUnknownField(12 * 1024)]);
    const first = harness.post(big, PROTOBUF);
    await sleep(50);
    const chunks = [big.subarray(0, 4096), big.subarray(4096, 8192), big.subarray(8192)];
    const second = await postChunked(harness.url, PROTOBUF, chunks);
    expect(second.status).toBe(429);
    release();
    expect((await first).status).toBe(200);
    expect((await postChunked(harness.url, PROTOBUF, chunks)).status).toBe(200);
  });
});

describe('Expect: 100-continue', () => {
  it('refuses a request before its body is sent, and takes the body of an accepted one', async () => {
    harness = await startReceiver({ bearerToken: 'token' });
    const body = Buffer.from(encodeOtlpProtobuf(sampleRequest()));
    const send = (authorization: string) =>
      new Promise<{ status: number; bodySent: boolean }>((resolve, reject) => {
        let bodySent = false;
        const req = request(harness!.url, {
          method: 'POST',
          headers: {
            ...PROTOBUF,
            Expect: '100-continue',
            'Content-Length': String(body.length),
            Authorization: authorization,
          },
        });
        req.on('continue', () => {
          bodySent = true;
          req.end(body);
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bodySent }));
          if (!bodySent) req.destroy();
        });
        req.on('error', reject);
        req.flushHeaders();
      });
    expect(await send('Bearer wrong')).toEqual({ status: 401, bodySent: false });
    expect(await send('Bearer token')).toEqual({ status: 200, bodySent: true });
    expect(harness.consumer.spans()).toHaveLength(4);
  });
});

/** A protobuf field (number 100, length-delimited) that decoders must skip: padding for size tests. */
function encodeUnknownField(size: number): Buffer {
  const header = Buffer.from([0xa2, 0x06, ...varint(size)]);
  return Buffer.concat([header, Buffer.alloc(size)]);
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return bytes;
}
