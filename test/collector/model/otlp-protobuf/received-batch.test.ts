/**
 * An OTLP/protobuf request as the receiver hands it on: checked without being decoded, cut into
 * one request per trace (what the ledger stores), and decoded on demand. Whatever a full decode
 * of the request gives — spans, refusals, errors — the received batch must give too.
 */
import protobuf from 'protobufjs/minimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufRequest } from '../../../../collector/model/otlp-protobuf/decode-request.ts';
import { createKeyMatcher } from '../../../../collector/model/otlp-protobuf/key-matcher.ts';
import { traceRequest } from '../../../../collector/model/otlp-protobuf/received-batch.ts';
import type { SpanData } from '../../../../collector/model/span.ts';
import { createSpanRejections } from '../../../../collector/model/span-rejections.ts';
import { CLASSIFIED_ATTRIBUTES } from '../../../../collector/processor/interactions/classify.ts';
import { decodeTraceRequest, receiveTraceRequest } from '../../../../collector/receiver/otlp/index.ts';
import { encodeOtlpProtobuf } from '../../../fixtures/otlp/encode-otlp-protobuf.ts';
import { mutateBytes, random } from '../../../fixtures/otlp/mutate-bytes.ts';
import { buildRealisticSpans, serializeProtobuf } from '../../../fixtures/otlp/realistic-spans.ts';
import { OTHER_TRACE_ID, TRACE_ID, sampleRequest } from '../../../fixtures/otlp/sample-request.ts';

const HEAD_ATTRIBUTES = createKeyMatcher(CLASSIFIED_ATTRIBUTES);
let realistic: Uint8Array;
beforeAll(async () => {
  // Three interactions of ten spans, exported together: traces interleave in one scope.
  realistic = serializeProtobuf(await buildRealisticSpans(30));
});

function decodeTrace(request: Uint8Array): SpanData[] {
  const rejections = createSpanRejections();
  const spans = decodeProtobufRequest(request, rejections);
  expect(rejections.count()).toBe(0);
  return spans;
}

/** Compares receiving `body` with decoding it in full; 'refused' when both refuse it alike. */
function compare(body: Uint8Array): 'accepted' | 'refused' {
  let decoded: ReturnType<typeof decodeTraceRequest> | Error;
  try {
    decoded = decodeTraceRequest(body, 'protobuf');
  } catch (error) {
    decoded = error as Error;
  }
  let received: ReturnType<typeof receiveTraceRequest> | Error;
  try {
    received = receiveTraceRequest(body, 'protobuf', HEAD_ATTRIBUTES);
  } catch (error) {
    received = error as Error;
  }
  if (decoded instanceof Error || received instanceof Error) {
    expect(received).toBeInstanceOf(Error);
    expect(decoded).toBeInstanceOf(Error);
    expect({ ...(received as Error), message: (received as Error).message }).toEqual({
      ...(decoded as Error),
      message: (decoded as Error).message,
    });
    return 'refused';
  }
  const { batch, ...refusals } = received;
  const { spans, ...expected } = decoded;
  expect(refusals).toEqual(expected);
  expect(batch.spanCount).toBe(spans.length);
  expect(batch.spans()).toStrictEqual(spans);
  const byTrace = batch.byTrace!;
  expect(byTrace.traceIds).toEqual([...new Set(spans.map((span) => span.traceId))]);
  byTrace.traceIds.forEach((traceId, index) => {
    const own = spans.filter((span) => span.traceId === traceId);
    expect(byTrace.spanCounts[index]).toBe(own.length);
    expect(decodeTrace(traceRequest(byTrace, index))).toStrictEqual(own);
  });
  // What a head answers (its ids as hex are written out when read), and its ids as the numbers
  // the assembler keeps.
  const heads = batch.heads.map((head) => ({
    traceId: head.traceId,
    spanId: head.spanId,
    parentSpanId: head.parentSpanId,
    name: head.name,
    attributes: head.attributes,
    flags: head.flags,
    origin: head.origin,
  }));
  const halves = (id: string | undefined) =>
    id === undefined
      ? [undefined, undefined]
      : [Buffer.from(id, 'hex').readInt32BE(0), Buffer.from(id, 'hex').readInt32BE(4)];
  expect(batch.heads.map((head) => [head.spanIdHigh, head.spanIdLow, head.parentIdHigh, head.parentIdLow])).toEqual(
    spans.map((span) => [...halves(span.spanId), ...halves(span.parentSpanId)]),
  );
  expect(heads).toStrictEqual(
    spans.map((span) => ({
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      name: span.name,
      attributes: Object.fromEntries(Object.entries(span.attributes).filter(([key]) => CLASSIFIED_ATTRIBUTES.has(key))),
      flags: span.flags,
      origin: { scopeName: span.origin.scopeName },
    })),
  );
  return 'accepted';
}

describe('a received OTLP/protobuf request', () => {
  it('gives the spans a full decode gives, in request order, one origin object per scope', () => {
    expect(compare(encodeOtlpProtobuf(sampleRequest()))).toBe('accepted');
    expect(compare(realistic)).toBe('accepted');
    const { batch } = receiveTraceRequest(encodeOtlpProtobuf(sampleRequest()), 'protobuf');
    const [first, second, third, fourth] = batch.spans();
    expect(first.origin).toBe(second.origin);
    expect(third.origin).not.toBe(first.origin);
    expect(fourth.origin.resource['service.name']).toBe('billing-agent');
  });

  it('is cut into one request per trace, each with the resources and scopes its spans came under', () => {
    const { batch } = receiveTraceRequest(encodeOtlpProtobuf(sampleRequest()), 'protobuf');
    const byTrace = batch.byTrace!;
    expect(byTrace.traceIds).toEqual([TRACE_ID, OTHER_TRACE_ID]);
    expect(byTrace.spanCounts).toEqual([3, 1]);
    expect(byTrace.offsets).toEqual([0, byTrace.offsets[1], byTrace.bytes.length]);
    const first = decodeTrace(traceRequest(byTrace, 0));
    expect(first.map((span) => [span.origin.scopeName, span.origin.resource['service.name']])).toEqual([
      ['scope-a', 'support-agent'],
      ['scope-a', 'support-agent'],
      ['scope-b', 'support-agent'],
    ]);
    expect(decodeTrace(traceRequest(byTrace, 1)).map((span) => span.origin.resource['service.name'])).toEqual([
      'billing-agent',
    ]);
  });

  it('lets go of its heads once the stage that reads them drops them, and still decodes and stores', () => {
    const { batch } = receiveTraceRequest(realistic, 'protobuf', HEAD_ATTRIBUTES);
    const heads = batch.heads;
    expect(heads).toHaveLength(30);
    expect(new Set(heads.map((head) => head.traceId)).size).toBe(batch.byTrace!.traceIds.length);
    expect(heads.every((head) => batch.byTrace!.traceIds.includes(head.traceId))).toBe(true);
    batch.dropHeads();
    expect(() => batch.heads).toThrow(/heads were read after they were dropped/);
    expect(batch.spanCount).toBe(30);
    expect(batch.spans().map((span) => span.spanId)).toEqual(heads.map((head) => head.spanId));
    expect(batch.byTrace!.spanCounts.reduce((sum, count) => sum + count, 0)).toBe(30);
  });

  it('leaves out refused spans, and a trace whose every span was refused', () => {
    const request = sampleRequest();
    request.resourceSpans[1].scopeSpans![0].spans![0].spanId = '00';
    expect(compare(encodeOtlpProtobuf(request))).toBe('accepted');
    const { batch, rejectedSpans } = receiveTraceRequest(encodeOtlpProtobuf(request), 'protobuf');
    expect(rejectedSpans).toBe(1);
    expect(batch.byTrace!.traceIds).toEqual([TRACE_ID]);
  });

  it('keeps a resource and a scope written after their spans', () => {
    // Protobuf fields may come in any order: ScopeSpans { spans; scope }, ResourceSpans { scope_spans; resource }.
    const span = encodeOtlpProtobuf(sampleRequest());
    const decoded = decodeTraceRequest(span, 'protobuf').spans[0];
    const w = protobuf.Writer.create();
    w.uint32(0x0a).fork(); // resource_spans
    w.uint32(0x12).fork(); // scope_spans
    const spanBytes = spanMessage(decoded.traceId);
    w.uint32(0x12).bytes(spanBytes); // spans
    w.uint32(0x0a).fork().uint32(0x0a).string('late-scope').ldelim(); // scope
    w.ldelim();
    w.uint32(0x0a).fork().uint32(0x0a).fork().uint32(0x0a).string('service.name'); // resource.attributes
    w.uint32(0x12).fork().uint32(0x0a).string('late-service').ldelim().ldelim().ldelim();
    w.ldelim();
    const body = w.finish();
    expect(compare(body)).toBe('accepted');
    const [received] = receiveTraceRequest(body, 'protobuf').batch.spans();
    expect(received.origin).toEqual({
      resource: { 'service.name': 'late-service' },
      scopeName: 'late-scope',
      scopeVersion: undefined,
    });
  });

  it('accepts, refuses and reports exactly what a full decode does, on 4000 mutated bodies', () => {
    const rng = random(20261201);
    const originals = [realistic, encodeOtlpProtobuf(sampleRequest())];
    const outcomes = { accepted: 0, refused: 0 };
    for (let i = 0; i < 4000; i++) {
      const body = mutateBytes(originals[i % originals.length], rng);
      outcomes[compare(body)]++;
    }
    // Both kinds of outcome, or the comparison proves nothing.
    expect(outcomes.accepted).toBeGreaterThan(200);
    expect(outcomes.refused).toBeGreaterThan(200);
  });
});

/** A Span message: ids, a name and one attribute. */
function spanMessage(traceId: string): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32(0x0a).bytes(Buffer.from(traceId, 'hex'));
  w.uint32(0x12).bytes(Buffer.from('0102030405060708', 'hex'));
  w.uint32(0x2a).string('invoke_agent');
  w.uint32(0x4a).fork().uint32(0x0a).string('gen_ai.operation.name');
  w.uint32(0x12).fork().uint32(0x0a).string('invoke_agent').ldelim().ldelim();
  return w.finish();
}
