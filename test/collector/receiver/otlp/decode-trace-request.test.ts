/** What both decoders must agree on: the same request in either encoding gives the same SpanData. */
import { describe, expect, it } from 'vitest';
import { decodeTraceRequest, type OtlpFormat } from '../../../../collector/receiver/otlp/index.ts';
import type { SpanData } from '../../../../collector/model/span.ts';
import { encodeOtlpProtobuf, type OtlpJsonRequest } from '../../../fixtures/otlp/encode-otlp-protobuf.ts';
import { buildRealisticSpans, serializeJson, serializeProtobuf } from '../../../fixtures/otlp/realistic-spans.ts';
import {
  CHILD_SPAN_ID,
  OTHER_SPAN_ID,
  OTHER_TRACE_ID,
  ROOT_SPAN_ID,
  TRACE_ID,
  sampleRequest,
  sampleSpan,
} from '../../../fixtures/otlp/sample-request.ts';

function encode(request: OtlpJsonRequest, format: OtlpFormat): Uint8Array {
  return format === 'protobuf' ? encodeOtlpProtobuf(request) : Buffer.from(JSON.stringify(request));
}

function oneScope(...spans: ReturnType<typeof sampleSpan>[]): OtlpJsonRequest {
  return { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans }] }] };
}

describe.each(['protobuf', 'json'] as const)('decodeTraceRequest (%s)', (format) => {
  it('decodes ids, times, kinds, every attribute value kind, events, links, status and flags', () => {
    const { spans, rejectedSpans, rejectionMessage } = decodeTraceRequest(encode(sampleRequest(), format), format);
    expect(rejectedSpans).toBe(0);
    expect(rejectionMessage).toBeUndefined();
    expect(spans).toHaveLength(4);
    const expected: SpanData = {
      traceId: TRACE_ID,
      spanId: ROOT_SPAN_ID,
      parentSpanId: undefined,
      name: 'invoke_agent support-agent',
      kind: 2,
      startTimeUnixNano: 1700000000000000000,
      endTimeUnixNano: 1700000001500000000,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.usage.input_tokens': 1234,
        'app.negative': -7,
        'gen_ai.request.temperature': 0.5,
        'user.premium': true,
        'evalon.agent.roles': ['a', 'b'],
        'app.config': { depth: 2, nested: [false, 1.5] },
        'app.blob': new Uint8Array([0, 1, 2, 250]),
        'app.empty': null,
      },
      events: [{ name: 'gen_ai.choice', timeUnixNano: 1700000000500000000, attributes: { index: 0 } }],
      links: [{ traceId: OTHER_TRACE_ID, spanId: OTHER_SPAN_ID, attributes: { 'link.kind': 'follows' } }],
      status: { code: 2, message: 'tool failed' },
      flags: 0x301,
      origin: { resource: { 'service.name': 'support-agent' }, scopeName: 'scope-a', scopeVersion: '1.0.0' },
    };
    expect(spans[0]).toEqual(expected);
    expect(spans[0].attributes['app.blob']).toBeInstanceOf(Uint8Array);
    expect(spans[1]).toMatchObject({
      spanId: CHILD_SPAN_ID,
      parentSpanId: ROOT_SPAN_ID,
      kind: 3,
      status: { code: 1 },
      flags: 0x101,
    });
    expect(spans[1].status.message).toBeUndefined();
    expect(spans[2]).toMatchObject({ name: 'tool', status: { code: 0 }, flags: 0 });
    expect(spans[3].origin).toEqual({
      resource: { 'service.name': 'billing-agent' },
      scopeName: 'scope-c',
      scopeVersion: undefined,
    });
  });

  it('shares one origin object per scope and one resource object per ResourceSpans', () => {
    const { spans } = decodeTraceRequest(encode(sampleRequest(), format), format);
    expect(spans[0].origin).toBe(spans[1].origin);
    expect(spans[2].origin).not.toBe(spans[0].origin);
    expect(spans[2].origin.resource).toBe(spans[0].origin.resource);
    expect(spans[3].origin.resource).not.toBe(spans[0].origin.resource);
  });

  it('refuses only the spans with bad ids and names each problem with its path', () => {
    const request = oneScope(
      sampleSpan({ spanId: '1111111111111111' }),
      sampleSpan({ spanId: '2222222222222222', traceId: 'abcd' }),
      sampleSpan({ spanId: undefined }),
      sampleSpan({ spanId: '3333333333333333', parentSpanId: 'abcdef' }),
      sampleSpan({ spanId: '4444444444444444', traceId: '0'.repeat(32) }),
      sampleSpan({ spanId: '5555555555555555' }),
    );
    const { spans, rejectedSpans, rejectionMessage } = decodeTraceRequest(encode(request, format), format);
    expect(spans.map((span) => span.spanId)).toEqual(['1111111111111111', '5555555555555555']);
    expect(rejectedSpans).toBe(4);
    const traceIdProblem = format === 'json' ? 'traceId must be 32 hex characters' : 'traceId must be 16 bytes (got 2)';
    expect(rejectionMessage).toContain(`resourceSpans[0].scopeSpans[0].spans[1]: ${traceIdProblem}`);
    expect(rejectionMessage).toContain('resourceSpans[0].scopeSpans[0].spans[2]: spanId is missing');
    expect(rejectionMessage).toContain('resourceSpans[0].scopeSpans[0].spans[3]: parentSpanId must be');
    expect(rejectionMessage).toContain('and 1 more rejected span(s)');
  });

  it('refuses a span whose link has a bad id', () => {
    const request = oneScope(sampleSpan({ links: [{ traceId: OTHER_TRACE_ID, spanId: 'ab' }] }));
    const { spans, rejectedSpans, rejectionMessage } = decodeTraceRequest(encode(request, format), format);
    expect(spans).toHaveLength(0);
    expect(rejectedSpans).toBe(1);
    expect(rejectionMessage).toMatch(/^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]: links\[0\]\.spanId must be/);
  });

  it('answers an empty request with no spans', () => {
    expect(decodeTraceRequest(new Uint8Array(0), format)).toEqual({ spans: [], rejectedSpans: 0 });
    expect(decodeTraceRequest(encode({ resourceSpans: [] }, format), format)).toEqual({ spans: [], rejectedSpans: 0 });
  });

  it('keeps an attribute named __proto__ as a plain property', () => {
    const request = oneScope(
      sampleSpan({
        attributes: [
          { key: '__proto__', value: { kvlistValue: { values: [{ key: 'polluted', value: { boolValue: true } }] } } },
        ],
      }),
    );
    const { spans } = decodeTraceRequest(encode(request, format), format);
    const attributes = spans[0].attributes;
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
    expect(Object.keys(attributes)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps the last value of a duplicated attribute key', () => {
    const request = oneScope(
      sampleSpan({
        attributes: [
          { key: 'k', value: { intValue: 1 } },
          { key: 'k', value: { intValue: 2 } },
        ],
      }),
    );
    expect(decodeTraceRequest(encode(request, format), format).spans[0].attributes).toEqual({ k: 2 });
  });
});

describe('decodeTraceRequest on what the OTel JS SDK sends', () => {
  it('gives the same spans from the protobuf and the JSON serialization of a 1000-span batch', async () => {
    const recorded = await buildRealisticSpans(1000);
    const fromProtobuf = decodeTraceRequest(serializeProtobuf(recorded), 'protobuf');
    const fromJson = decodeTraceRequest(serializeJson(recorded), 'json');
    expect(fromProtobuf.spans).toHaveLength(1000);
    expect(fromProtobuf.rejectedSpans).toBe(0);
    expect(fromJson.spans).toEqual(fromProtobuf.spans);
    const ids = new Set(recorded.map((span) => span.spanContext().spanId));
    expect(fromProtobuf.spans.every((span) => ids.has(span.spanId))).toBe(true);
  });
});
