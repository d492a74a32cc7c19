/**
 * The OTLP/gRPC receiver over real gRPC (grpc-js client and server), with an in-memory consumer:
 * what it stores, how it answers bad input and a failing pipeline, and that after every bad call
 * the same receiver still serves.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { BackpressureError } from '../../../../../collector/pipeline/consumer.ts';
import {
  createOtlpGrpcReceiver,
  type GrpcReceiverConfig,
  type OtlpGrpcReceiver,
} from '../../../../../collector/receiver/otlp/grpc/index.ts';
import { encodeOtlpProtobuf, type OtlpJsonRequest } from '../../../../fixtures/otlp/encode-otlp-protobuf.ts';
import { sampleRequest, sampleSpan } from '../../../../fixtures/otlp/sample-request.ts';
import {
  createRawTraceClient,
  decodePartialSuccess,
  statusDetails,
  type RawTraceClient,
} from '../../../../helpers/grpc-client.ts';
import { InMemorySpanConsumer } from '../../../../helpers/in-memory-span-consumer.ts';
import type { SpanBatch } from '../../../../../collector/model/span-batch.ts';

interface GrpcHarness {
  receiver: OtlpGrpcReceiver;
  consumer: InMemorySpanConsumer;
  client: RawTraceClient;
  warnings: string[];
  received: { accepted: number; rejected: number }[];
  port: number;
  /** Resolves when the receiver next calls `consume` (the call has then passed every check). */
  nextConsume(): Promise<void>;
}

let harness: GrpcHarness | undefined;
afterEach(async () => {
  harness?.client.close();
  await harness?.receiver.shutdown();
  harness = undefined;
});

async function startGrpcReceiver(
  overrides: Partial<GrpcReceiverConfig> = {},
  options: { gzip?: boolean } = {},
): Promise<GrpcHarness> {
  const consumer = new InMemorySpanConsumer();
  const warnings: string[] = [];
  const received: { accepted: number; rejected: number }[] = [];
  const waiting: Array<() => void> = [];
  const next = {
    consume(batch: SpanBatch) {
      for (const resolve of waiting.splice(0)) resolve();
      return consumer.consume(batch);
    },
  };
  const receiver = createOtlpGrpcReceiver(
    { host: '127.0.0.1', port: 0, maxRecvMsgBytes: 4 * 1024 * 1024, ...overrides },
    next,
    {
      onReceived: (accepted, rejected) => received.push({ accepted, rejected }),
      logger: { warn: (message) => warnings.push(message) },
    },
  );
  await receiver.start();
  const { port } = receiver.address();
  const nextConsume = () => new Promise<void>((resolve) => waiting.push(resolve));
  harness = { receiver, consumer, client: createRawTraceClient(port, options), warnings, received, port, nextConsume };
  return harness;
}

const goodRequest = () => encodeOtlpProtobuf(sampleRequest());

/** The receiver still takes a normal request after whatever came before. */
async function expectStillServing(h: GrpcHarness): Promise<void> {
  const before = h.consumer.spans().length;
  const result = await h.client.export(goodRequest());
  expect(result.code).toBe(GrpcStatus.OK);
  expect(result.body).toHaveLength(0);
  expect(h.consumer.spans().length).toBe(before + 4);
}

describe('the OTLP/gRPC receiver', () => {
  it('hands the decoded spans to the consumer and answers an empty ExportTraceServiceResponse', async () => {
    const h = await startGrpcReceiver();
    const result = await h.client.export(goodRequest());
    expect(result).toMatchObject({ code: GrpcStatus.OK });
    expect(result.body).toHaveLength(0);
    expect(h.consumer.spans().map((s) => s.name)).toEqual([
      'invoke_agent support-agent',
      'chat',
      'tool',
      'invoke_agent support-agent',
    ]);
    expect(h.received).toEqual([{ accepted: 4, rejected: 0 }]);
  });

  it('accepts gzip-compressed messages', async () => {
    const h = await startGrpcReceiver({}, { gzip: true });
    expect((await h.client.export(goodRequest())).code).toBe(GrpcStatus.OK);
    expect(h.consumer.spans()).toHaveLength(4);
  });

  it('answers an empty request OK without calling the consumer', async () => {
    const h = await startGrpcReceiver();
    expect((await h.client.export(new Uint8Array(0))).code).toBe(GrpcStatus.OK);
    expect(h.consumer.batches).toHaveLength(0);
  });

  it('answers OK only after the consumer has resolved', async () => {
    const h = await startGrpcReceiver();
    const release = h.consumer.hold();
    let answered = false;
    const consuming = h.nextConsume();
    const pending = h.client.export(goodRequest()).then((result) => {
      answered = true;
      return result;
    });
    await consuming;
    expect(answered).toBe(false);
    release();
    expect((await pending).code).toBe(GrpcStatus.OK);
    expect(h.consumer.spans()).toHaveLength(4);
  });
});

describe('bad input', () => {
  it('answers a truncated message INVALID_ARGUMENT naming the byte, with a BadRequest detail', async () => {
    const h = await startGrpcReceiver();
    const body = goodRequest();
    const result = await h.client.export(body.subarray(0, body.length - 5));
    expect(result.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(result.details).toMatch(/^protobuf: truncated message at byte \d+/);
    const details = statusDetails(result.trailers);
    expect(details).toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT, message: result.details });
    expect(details?.fieldViolation?.description).toBe(result.details);
    expect(h.consumer.batches).toHaveLength(0);
    await expectStillServing(h);
  });

  it('answers bytes that are not protobuf at all INVALID_ARGUMENT', async () => {
    const h = await startGrpcReceiver();
    const result = await h.client.export(Buffer.from('{"resourceSpans": []}'));
    expect(result.code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(result.details).toMatch(/^protobuf: /);
    await expectStillServing(h);
  });

  it('accepts the good spans of a batch and reports the refused one as partial success', async () => {
    const h = await startGrpcReceiver();
    const request: OtlpJsonRequest = sampleRequest();
    request.resourceSpans[0].scopeSpans![0].spans!.push(sampleSpan({ spanId: 'abc' }));
    const result = await h.client.export(encodeOtlpProtobuf(request));
    expect(result.code).toBe(GrpcStatus.OK);
    expect(decodePartialSuccess(result.body!)).toEqual({
      rejectedSpans: 1,
      errorMessage: 'resourceSpans[0].scopeSpans[0].spans[2]: spanId must be 8 bytes (got 1)',
    });
    expect(h.consumer.spans()).toHaveLength(4);
    expect(h.received).toEqual([{ accepted: 4, rejected: 1 }]);
  });

  it('answers a message larger than max_recv_msg_size RESOURCE_EXHAUSTED, on the wire and after gzip', async () => {
    const limit = 64 * 1024;
    const request = sampleRequest();
    request.resourceSpans[0].scopeSpans![0].spans![0].attributes!.push({
      key: 'big',
      value: { stringValue: 'x'.repeat(limit) },
    });
    const oversize = encodeOtlpProtobuf(request);

    const plain = await startGrpcReceiver({ maxRecvMsgBytes: limit });
    const onTheWire = await plain.client.export(oversize);
    expect(onTheWire.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(onTheWire.details).toMatch(/larger than max/);
    await expectStillServing(plain);
    plain.client.close();
    await plain.receiver.shutdown();

    // Compressed it is far below the limit: the limit holds on the decompressed size.
    const zipped = await startGrpcReceiver({ maxRecvMsgBytes: limit }, { gzip: true });
    const decompressed = await zipped.client.export(oversize);
    expect(decompressed.code).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(decompressed.details).toMatch(/decompresses to a size larger than 65536/);
    expect(zipped.consumer.batches).toHaveLength(0);
    await expectStillServing(zipped);
  });

  it('refuses calls without the configured bearer token UNAUTHENTICATED', async () => {
    const h = await startGrpcReceiver({ bearerToken: 's3cret-token' });
    const missing = await h.client.export(goodRequest());
    expect(missing.code).toBe(GrpcStatus.UNAUTHENTICATED);
    expect(missing.details).toMatch(/missing or wrong bearer token/);
    expect((await h.client.export(goodRequest(), { authorization: 'Bearer wrong' })).code).toBe(
      GrpcStatus.UNAUTHENTICATED,
    );
    expect((await h.client.export(goodRequest(), { authorization: 'Bearer s3cret-token' })).code).toBe(GrpcStatus.OK);
    expect(h.consumer.batches).toHaveLength(1);
  });
});

describe('a failing pipeline', () => {
  it('answers backpressure UNAVAILABLE with a RetryInfo delay, and stores nothing', async () => {
    const h = await startGrpcReceiver();
    h.consumer.failNext(
      new BackpressureError('interactions processor: 100000 pending traces', { retryAfterSeconds: 7 }),
    );
    const throttled = await h.client.export(goodRequest());
    expect(throttled.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(throttled.details).toBe('otlp grpc receiver: interactions processor: 100000 pending traces');
    expect(statusDetails(throttled.trailers)).toMatchObject({ code: GrpcStatus.UNAVAILABLE, retryDelaySeconds: 7 });

    h.consumer.failNext(new BackpressureError('ledger: not writable', { retryAfterSeconds: 0.2, status: 503 }));
    const unavailable = await h.client.export(goodRequest());
    expect(unavailable.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(statusDetails(unavailable.trailers)?.retryDelaySeconds).toBe(1);
    expect(h.consumer.batches).toHaveLength(0);
    expect(h.received).toEqual([]);
    await expectStillServing(h);
  });

  it('answers any other store failure UNAVAILABLE and logs it', async () => {
    const h = await startGrpcReceiver();
    h.consumer.failNext(new Error('SQLITE_IOERR: disk I/O error'));
    const result = await h.client.export(goodRequest());
    expect(result.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(result.details).toBe('otlp grpc receiver: the spans could not be stored (retry later)');
    expect(statusDetails(result.trailers)?.retryDelaySeconds).toBe(5);
    expect(h.warnings).toEqual([
      expect.stringMatching(/storing 4 spans failed, answered UNAVAILABLE .*SQLITE_IOERR: disk I\/O error/),
    ]);
    await expectStillServing(h);
  });

  it('answers UNAVAILABLE when too many request bytes are in flight', async () => {
    const h = await startGrpcReceiver({ maxInFlightBytes: 10 });
    const release = h.consumer.hold();
    const consuming = h.nextConsume();
    const first = h.client.export(goodRequest());
    await consuming;
    const second = await h.client.export(goodRequest());
    expect(second.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(second.details).toMatch(/too many request bytes in flight/);
    expect(statusDetails(second.trailers)?.retryDelaySeconds).toBe(1);
    release();
    expect((await first).code).toBe(GrpcStatus.OK);
    await expectStillServing(h);
  });
});

describe('lifecycle', () => {
  it('shuts down safely without start and twice, and cannot start after shutdown', async () => {
    const receiver = createOtlpGrpcReceiver(
      { host: '127.0.0.1', port: 0, maxRecvMsgBytes: 1024 },
      new InMemorySpanConsumer(),
    );
    await receiver.shutdown();
    await receiver.shutdown();
    await expect(receiver.start()).rejects.toThrow('otlp grpc receiver: cannot start after shutdown');
  });

  it('waits for a call whose spans are being stored before its shutdown resolves', async () => {
    const h = await startGrpcReceiver();
    const release = h.consumer.hold();
    const consuming = h.nextConsume();
    const call = h.client.export(goodRequest());
    await consuming;
    let stopped = false;
    const stopping = h.receiver.shutdown().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect((await call).code).toBe(GrpcStatus.OK);
    expect(h.consumer.spans()).toHaveLength(4);
  });

  it('reports the port in use when it cannot listen', async () => {
    const h = await startGrpcReceiver();
    const second = createOtlpGrpcReceiver(
      { host: '127.0.0.1', port: h.port, maxRecvMsgBytes: 1024 },
      new InMemorySpanConsumer(),
    );
    await expect(second.start()).rejects.toThrow(
      new RegExp(`^otlp grpc receiver: cannot listen on 127.0.0.1:${h.port} \\(.*EADDRINUSE`),
    );
    await second.shutdown();
  });
});
