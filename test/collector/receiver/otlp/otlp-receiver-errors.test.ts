/**
 * The receiver's answers to bad input and to a failing pipeline, over real HTTP. After every bad
 * request the same receiver must still accept a normal one.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { afterEach, describe, expect, it } from 'vitest';
import { BackpressureError } from '../../../../collector/pipeline/consumer.ts';
import { encodeOtlpProtobuf, type OtlpJsonRequest } from '../../../fixtures/otlp/encode-otlp-protobuf.ts';
import { sampleRequest, sampleSpan } from '../../../fixtures/otlp/sample-request.ts';
import { postChunked, startReceiver, type HarnessResponse, type ReceiverHarness } from './helpers/receiver-harness.ts';

const PROTOBUF = { 'Content-Type': 'application/x-protobuf' };
const JSON_TYPE = { 'Content-Type': 'application/json' };

const rpcStatus = protobuf.Root.fromJSON({
  nested: { Status: { fields: { code: { id: 1, type: 'int32' }, message: { id: 2, type: 'string' } } } },
}).lookupType('Status');

function protobufStatus(response: HarnessResponse): { code: number; message: string } {
  expect(response.headers.get('content-type')).toBe('application/x-protobuf');
  return rpcStatus.decode(response.body) as unknown as { code: number; message: string };
}

function jsonStatus(response: HarnessResponse): { code: number; message: string } {
  expect(response.headers.get('content-type')).toBe('application/json');
  return response.json() as { code: number; message: string };
}

const goodProtobuf = () => encodeOtlpProtobuf(sampleRequest());
const goodJson = () => JSON.stringify(sampleRequest());

let harness: ReceiverHarness;
afterEach(() => harness?.receiver.shutdown());

/** The receiver still takes a normal request in both encodings after whatever came before. */
async function expectStillServing(): Promise<void> {
  const before = harness.consumer.spans().length;
  const asProtobuf = await harness.post(goodProtobuf(), PROTOBUF);
  expect(asProtobuf.status).toBe(200);
  expect(asProtobuf.body).toHaveLength(0);
  const asJson = await harness.post(goodJson(), JSON_TYPE);
  expect(asJson.status).toBe(200);
  expect(asJson.json()).toEqual({});
  expect(harness.consumer.spans().length).toBe(before + 8);
}

describe('undecodable bodies', () => {
  it('answers a truncated protobuf body 400 with a protobuf Status naming the byte', async () => {
    harness = await startReceiver();
    const body = goodProtobuf();
    const response = await harness.post(body.subarray(0, body.length - 5), PROTOBUF);
    expect(response.status).toBe(400);
    const status = protobufStatus(response);
    expect(status.code).toBe(3);
    expect(status.message).toMatch(/^protobuf: truncated message at byte \d+/);
    expect(harness.consumer.batches).toHaveLength(0);
    await expectStillServing();
  });

  it('answers a protobuf field with the wrong wire type 400', async () => {
    harness = await startReceiver();
    const response = await harness.post(Uint8Array.from([0x08, 0x01]), PROTOBUF); // resource_spans as a varint
    expect(response.status).toBe(400);
    expect(protobufStatus(response).message).toMatch(
      /^protobuf: ExportTraceServiceRequest.resource_spans has wire type varint/,
    );
    await expectStillServing();
  });

  it('answers malformed JSON 400 with a JSON Status', async () => {
    harness = await startReceiver();
    const response = await harness.post('{"resourceSpans": [', JSON_TYPE);
    expect(response.status).toBe(400);
    const status = jsonStatus(response);
    expect(status).toMatchObject({ code: 3 });
    expect(status.message).toMatch(/^json: the body is not valid JSON/);
    await expectStillServing();
  });

  it('answers JSON of the wrong shape 400, naming the path and carrying a BadRequest detail', async () => {
    harness = await startReceiver();
    const response = await harness.post('{"resourceSpans": [{"scopeSpans": {}}]}', JSON_TYPE);
    expect(response.status).toBe(400);
    expect(jsonStatus(response)).toEqual({
      code: 3,
      message: 'json: resourceSpans[0].scopeSpans must be an array (got an object)',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [
            {
              field: 'resourceSpans[0].scopeSpans',
              description: 'json: resourceSpans[0].scopeSpans must be an array (got an object)',
            },
          ],
        },
      ],
    });
    await expectStillServing();
  });

  it('answers a body that claims gzip but is not 400', async () => {
    harness = await startReceiver();
    const response = await harness.post(goodProtobuf(), { ...PROTOBUF, 'Content-Encoding': 'gzip' });
    expect(response.status).toBe(400);
    expect(protobufStatus(response).message).toMatch(/^request body: not valid gzip data/);
    const truncatedGzip = gzipSync(goodJson()).subarray(0, 30);
    const truncated = await harness.post(truncatedGzip, { ...JSON_TYPE, 'Content-Encoding': 'gzip' });
    expect(truncated.status).toBe(400);
    await expectStillServing();
  });
});

describe('content negotiation', () => {
  it('answers an unsupported Content-Type 415 with a JSON Status naming the accepted types', async () => {
    harness = await startReceiver();
    for (const contentType of ['text/plain', 'application/grpc', 'application/jsonx']) {
      const response = await harness.post(goodJson(), { 'Content-Type': contentType });
      expect(response.status).toBe(415);
      expect(jsonStatus(response).message).toBe(
        `otlp receiver: unsupported Content-Type ${contentType} (send application/x-protobuf, application/json)`,
      );
    }
    expect(harness.consumer.batches).toHaveLength(0);
    await expectStillServing();
  });

  it('accepts media type parameters and any letter case', async () => {
    harness = await startReceiver();
    expect((await harness.post(goodJson(), { 'Content-Type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await harness.post(goodProtobuf(), { 'Content-Type': 'Application/X-Protobuf' })).status).toBe(200);
  });

  it('answers an unsupported Content-Encoding 415', async () => {
    harness = await startReceiver();
    const response = await harness.post(goodJson(), { ...JSON_TYPE, 'Content-Encoding': 'br' });
    expect(response.status).toBe(415);
    expect(jsonStatus(response).message).toBe(
      'otlp receiver: unsupported Content-Encoding br (send gzip, deflate, identity)',
    );
    await expectStillServing();
  });

  it('decompresses gzip, deflate and identity bodies', async () => {
    harness = await startReceiver();
    expect((await harness.post(gzipSync(goodProtobuf()), { ...PROTOBUF, 'Content-Encoding': 'gzip' })).status).toBe(
      200,
    );
    expect((await harness.post(deflateSync(goodJson()), { ...JSON_TYPE, 'Content-Encoding': 'deflate' })).status).toBe(
      200,
    );
    expect((await harness.post(goodJson(), { ...JSON_TYPE, 'Content-Encoding': 'identity' })).status).toBe(200);
    expect(harness.consumer.spans()).toHaveLength(12);
  });

  it('answers other paths 404 and other methods 405', async () => {
    harness = await startReceiver();
    const notFound = await harness.post(goodJson(), JSON_TYPE, '/v1/logs');
    expect(notFound.status).toBe(404);
    expect(jsonStatus(notFound).message).toBe(
      'otlp receiver: no endpoint at /v1/logs (traces are received at POST /v1/traces)',
    );
    const wrongMethod = await fetch(harness.url, { method: 'GET' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect(((await wrongMethod.json()) as { message: string }).message).toMatch(/GET is not allowed on \/v1\/traces/);
    expect((await harness.post(goodJson(), JSON_TYPE, '/v1/traces?tenant=a')).status).toBe(200);
  });
});

describe('size limits', () => {
  it('answers a body over max_request_body_size 413 before reading it', async () => {
    harness = await startReceiver({ maxRequestBodyBytes: 64 * 1024 });
    const response = await harness.post(Buffer.alloc(100 * 1024), PROTOBUF);
    expect(response.status).toBe(413);
    expect(protobufStatus(response).message).toMatch(
      /^request body: larger than 65536 bytes \(raise receivers::otlp::protocols::http::max_request_body_size/,
    );
    await expectStillServing();
  });

  it('stops a chunked body without Content-Length as soon as it crosses the limit', async () => {
    harness = await startReceiver({ maxRequestBodyBytes: 64 * 1024 });
    const chunks = Array.from({ length: 64 }, () => Buffer.alloc(16 * 1024));
    const response = await postChunked(harness.url, JSON_TYPE, chunks);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).message).toMatch(/^request body: larger than 65536 bytes/);
    await expectStillServing();
  });

  it('answers a gzip bomb 413 once the decompressed size crosses the limit, without inflating the rest', async () => {
    harness = await startReceiver({ maxRequestBodyBytes: 2 * 1024 * 1024 });
    // Concatenated gzip members are one valid gzip stream: ~1 MB on the wire, 1 GiB inflated.
    const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 1000 }, () => member));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const response = await harness.post(bomb, { ...PROTOBUF, 'Content-Encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(protobufStatus(response).message).toMatch(/^request body: larger than 2097152 bytes after decompression/);
    // Inflating the whole GiB takes this machine about 2 s of CPU; a stopped inflater uses none.
    const cpuBefore = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpu = process.cpuUsage(cpuBefore);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(250);
    await expectStillServing();
  });
});

describe('authentication', () => {
  it('answers a missing or wrong bearer token 401 and accepts the right one', async () => {
    harness = await startReceiver({ bearerToken: 's3cret-token' });
    const missing = await harness.post(goodJson(), JSON_TYPE);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(jsonStatus(missing)).toMatchObject({
      code: 16,
      message: expect.stringMatching(/missing or wrong bearer token/),
    });
    for (const authorization of ['Bearer wrong', 'Bearer s3cret-token-longer', 'Basic s3cret-token', 's3cret-token']) {
      expect((await harness.post(goodProtobuf(), { ...PROTOBUF, Authorization: authorization })).status).toBe(401);
    }
    expect(harness.consumer.batches).toHaveLength(0);
    expect((await harness.post(goodProtobuf(), { ...PROTOBUF, Authorization: 'Bearer s3cret-token' })).status).toBe(
      200,
    );
    expect((await harness.post(goodJson(), { ...JSON_TYPE, Authorization: 'bearer s3cret-token' })).status).toBe(200);
    expect(harness.consumer.batches).toHaveLength(2);
  });
});

describe('partial success', () => {
  const withOneBadSpan = (): OtlpJsonRequest => {
    const request = sampleRequest();
    request.resourceSpans[0].scopeSpans![0].spans!.push(sampleSpan({ spanId: 'abc' }));
    return request;
  };

  it('accepts the good spans and reports the bad one in protobuf', async () => {
    harness = await startReceiver();
    const response = await harness.post(encodeOtlpProtobuf(withOneBadSpan()), PROTOBUF);
    expect(response.status).toBe(200);
    const partial = protobuf.Root.fromJSON({
      nested: {
        Response: { fields: { partialSuccess: { id: 1, type: 'Partial' } } },
        Partial: { fields: { rejectedSpans: { id: 1, type: 'int64' }, errorMessage: { id: 2, type: 'string' } } },
      },
    })
      .lookupType('Response')
      .decode(response.body) as unknown as {
      partialSuccess: { rejectedSpans: { toNumber(): number }; errorMessage: string };
    };
    expect(partial.partialSuccess.rejectedSpans.toNumber()).toBe(1);
    expect(partial.partialSuccess.errorMessage).toBe(
      'resourceSpans[0].scopeSpans[0].spans[2]: spanId must be 8 bytes (got 1)',
    );
    expect(harness.consumer.spans()).toHaveLength(4);
    expect(harness.received).toEqual([{ accepted: 4, rejected: 1 }]);
  });

  it('accepts the good spans and reports the bad one in JSON', async () => {
    harness = await startReceiver();
    const response = await harness.post(JSON.stringify(withOneBadSpan()), JSON_TYPE);
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage: 'resourceSpans[0].scopeSpans[0].spans[2]: spanId must be 16 hex characters',
      },
    });
    expect(harness.consumer.spans()).toHaveLength(4);
    await expectStillServing();
  });

  it('does not call the consumer when every span was refused, and still answers 200', async () => {
    harness = await startReceiver();
    const request: OtlpJsonRequest = { resourceSpans: [{ scopeSpans: [{ spans: [sampleSpan({ traceId: '' })] }] }] };
    const response = await harness.post(JSON.stringify(request), JSON_TYPE);
    expect(response.status).toBe(200);
    expect(response.json().partialSuccess?.rejectedSpans).toBe('1');
    expect(harness.consumer.batches).toHaveLength(0);
  });
});

describe('empty requests', () => {
  it('answers an empty body and an empty request 200 without calling the consumer', async () => {
    harness = await startReceiver();
    const emptyProtobuf = await harness.post(new Uint8Array(0), PROTOBUF);
    expect(emptyProtobuf.status).toBe(200);
    expect(emptyProtobuf.body).toHaveLength(0);
    expect((await harness.post('', JSON_TYPE)).json()).toEqual({});
    expect((await harness.post('{"resourceSpans": []}', JSON_TYPE)).json()).toEqual({});
    expect((await harness.post('{}', JSON_TYPE)).status).toBe(200);
    expect(harness.consumer.batches).toHaveLength(0);
  });
});

describe('a failing pipeline', () => {
  it('answers a consumer BackpressureError with its status and Retry-After, and stores nothing', async () => {
    harness = await startReceiver();
    harness.consumer.failNext(
      new BackpressureError('interactions processor: 100000 pending traces', { retryAfterSeconds: 7 }),
    );
    const throttled = await harness.post(goodProtobuf(), PROTOBUF);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('7');
    expect(protobufStatus(throttled)).toMatchObject({
      code: 8,
      message: 'otlp receiver: interactions processor: 100000 pending traces',
    });

    harness.consumer.failNext(new BackpressureError('ledger: not writable', { retryAfterSeconds: 0.2, status: 503 }));
    const unavailable = await harness.post(goodJson(), JSON_TYPE);
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('1');
    expect(jsonStatus(unavailable).code).toBe(14);
    expect(harness.consumer.batches).toHaveLength(0);
    expect(harness.received).toEqual([]);
    await expectStillServing();
  });

  it('answers any other consumer failure 503 with Retry-After and logs it', async () => {
    harness = await startReceiver();
    harness.consumer.failNext(new Error('SQLITE_IOERR: disk I/O error'));
    const response = await harness.post(goodJson(), JSON_TYPE);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(jsonStatus(response).message).toBe('otlp receiver: the spans could not be stored (retry later)');
    expect(harness.warnings).toEqual([
      expect.stringMatching(/storing 4 spans failed, answered 503 .*SQLITE_IOERR: disk I\/O error/),
    ]);
    await expectStillServing();
  });

  it('answers 200 only after the consumer has resolved', async () => {
    harness = await startReceiver();
    const release = harness.consumer.hold();
    let answered = false;
    const pending = harness.post(goodJson(), JSON_TYPE).then((response) => {
      answered = true;
      return response;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    release();
    expect((await pending).status).toBe(200);
    expect(harness.consumer.spans()).toHaveLength(4);
  });
});
