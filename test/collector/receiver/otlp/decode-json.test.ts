/** The OTLP/JSON decoder on the OTLP specification's deviations from proto3 JSON and on malformed bodies. */
import { describe, expect, it } from 'vitest';
import { OtlpDecodeError, decodeTraceRequest } from '../../../../collector/receiver/otlp/index.ts';
import { TRACE_ID, sampleSpan } from '../../../fixtures/otlp/sample-request.ts';

function decode(body: unknown) {
  return decodeTraceRequest(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), 'json');
}

function oneSpan(span: Record<string, unknown>) {
  return { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] };
}

function decodeError(body: unknown): OtlpDecodeError {
  try {
    decode(body);
  } catch (error) {
    expect(error).toBeInstanceOf(OtlpDecodeError);
    return error as OtlpDecodeError;
  }
  throw new Error('expected an OtlpDecodeError');
}

describe('the OTLP/JSON decoder', () => {
  it('accepts 64-bit integers as decimal strings or numbers, intValue included', () => {
    const { spans } = decode(
      oneSpan({
        ...sampleSpan(),
        startTimeUnixNano: 1700000000000000000,
        endTimeUnixNano: '1700000001000000000',
        attributes: [
          { key: 'as-string', value: { intValue: '42' } },
          { key: 'as-number', value: { intValue: 42 } },
          { key: 'negative-string', value: { intValue: '-9007199254740991' } },
        ],
      }),
    );
    expect(spans[0].startTimeUnixNano).toBe(1700000000000000000);
    expect(spans[0].endTimeUnixNano).toBe(1700000001000000000);
    expect(spans[0].attributes).toEqual({ 'as-string': 42, 'as-number': 42, 'negative-string': -9007199254740991 });
  });

  it('reads ids as case-insensitive hex and hands them on lowercase', () => {
    const { spans } = decode(
      oneSpan({
        ...sampleSpan(),
        traceId: TRACE_ID.toUpperCase(),
        spanId: 'EEE19B7EC3C1B174',
        parentSpanId: 'AbCdEf0123456789',
      }),
    );
    expect(spans[0]).toMatchObject({ traceId: TRACE_ID, spanId: 'eee19b7ec3c1b174', parentSpanId: 'abcdef0123456789' });
  });

  it('treats an empty parentSpanId as a root span', () => {
    expect(decode(oneSpan({ ...sampleSpan(), parentSpanId: '' })).spans[0].parentSpanId).toBeUndefined();
  });

  it('ignores unknown keys at every level', () => {
    const body = {
      futureTopLevel: 1,
      resourceSpans: [
        {
          schemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
          unknown: { deep: [1, 2] },
          resource: {
            attributes: [{ key: 'service.name', value: { stringValue: 'a', extra: true } }],
            droppedAttributesCount: 0,
            entityRefs: [],
          },
          scopeSpans: [
            {
              scope: { name: 's', attributes: [], somethingNew: 'x' },
              spans: [
                {
                  ...sampleSpan(),
                  traceState: 'k=v',
                  droppedEventsCount: 3,
                  brandNewField: { a: 1 },
                  status: { code: 2, message: 'm', extra: 1 },
                },
              ],
            },
          ],
        },
      ],
    };
    const { spans, rejectedSpans } = decode(body);
    expect(rejectedSpans).toBe(0);
    expect(spans[0].origin.resource).toEqual({ 'service.name': 'a' });
    expect(spans[0].status).toEqual({ code: 2, message: 'm' });
  });

  it('takes enums as integers, numeric strings or their proto names', () => {
    const kinds = [3, '4', 'SPAN_KIND_SERVER'].map((kind) => decode(oneSpan({ ...sampleSpan(), kind })).spans[0].kind);
    expect(kinds).toEqual([3, 4, 2]);
    expect(decode(oneSpan({ ...sampleSpan(), status: { code: 'STATUS_CODE_ERROR' } })).spans[0].status.code).toBe(2);
  });

  it('reads doubles given as numbers or as proto3 JSON strings', () => {
    const attributes = [
      { key: 'n', value: { doubleValue: 1.25 } },
      { key: 'i', value: { doubleValue: 'Infinity' } },
      { key: 'nan', value: { doubleValue: 'NaN' } },
    ];
    expect(decode(oneSpan({ ...sampleSpan(), attributes })).spans[0].attributes).toEqual({
      n: 1.25,
      i: Infinity,
      nan: NaN,
    });
  });

  it('accepts a byte order mark and null for unset fields', () => {
    const body =
      '\uFEFF' +
      JSON.stringify(
        oneSpan({
          ...sampleSpan(),
          parentSpanId: null,
          events: null,
          links: null,
          status: null,
          attributes: [{ key: 'a', value: null }],
        }),
      );
    const { spans } = decode(body);
    expect(spans[0]).toMatchObject({
      parentSpanId: undefined,
      events: [],
      links: [],
      status: { code: 0 },
      attributes: { a: null },
    });
  });

  it('refuses a span with a badly typed field and names the field', () => {
    const good = sampleSpan({ spanId: '1111111111111111' });
    const body = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                good,
                {
                  ...sampleSpan(),
                  attributes: [
                    { key: 'a', value: { stringValue: 'ok' } },
                    { key: 'b', value: { intValue: '12abc' } },
                  ],
                },
                { ...sampleSpan(), traceId: Buffer.from(TRACE_ID, 'hex').toString('base64') },
                { ...sampleSpan(), startTimeUnixNano: 'yesterday' },
                'not a span',
              ],
            },
          ],
        },
      ],
    };
    const { spans, rejectedSpans, rejectionMessage } = decode(body);
    expect(spans.map((span) => span.spanId)).toEqual(['1111111111111111']);
    expect(rejectedSpans).toBe(4);
    expect(rejectionMessage).toContain(
      'resourceSpans[0].scopeSpans[0].spans[1]: attributes[1].value.intValue must be an integer as a decimal ' +
        'string or a number (got "12abc")',
    );
    expect(rejectionMessage).toContain(
      'spans[2]: traceId must be 32 hex characters (OTLP/JSON ids are hex, not base64)',
    );
    expect(rejectionMessage).toContain('spans[3]: startTimeUnixNano must be an integer');
    expect(rejectionMessage).toContain('and 1 more rejected span(s)');
  });

  it('fails a body that is not JSON', () => {
    expect(decodeError('{"resourceSpans": [').message).toMatch(/^json: the body is not valid JSON \(/);
    expect(decodeError('\x0a\x05hello').message).toMatch(/^json: the body is not valid JSON/);
  });

  it('fails a body whose structure around the spans is wrong, naming the path', () => {
    expect(decodeError([]).message).toBe('json: the body must be an ExportTraceServiceRequest object (got an array)');
    expect(decodeError({ resourceSpans: {} }).message).toBe('json: resourceSpans must be an array (got an object)');
    const error = decodeError({ resourceSpans: [{ scopeSpans: { spans: [] } }] });
    expect(error.message).toBe('json: resourceSpans[0].scopeSpans must be an array (got an object)');
    expect(error.field).toBe('resourceSpans[0].scopeSpans');
    expect(
      decodeError({ resourceSpans: [{ resource: { attributes: [{ key: 'a', value: { boolValue: 'yes' } }] } }] })
        .message,
    ).toBe('json: resourceSpans[0].resource.attributes[0].value.boolValue must be true or false (got "yes")');
    expect(decodeError({ resourceSpans: [{ scopeSpans: [{ scope: 'x' }] }] }).message).toBe(
      'json: resourceSpans[0].scopeSpans[0].scope must be an object (got "x")',
    );
  });

  it('warns (rejecting nothing) when the keys are snake_case, which the OTLP specification says to ignore', () => {
    const result = decode({ resource_spans: [{ scope_spans: [] }] });
    expect(result.spans).toEqual([]);
    expect(result.rejectedSpans).toBe(0);
    expect(result.rejectionMessage).toMatch(/resource_spans was ignored: OTLP\/JSON keys are lowerCamelCase/);
  });

  it('decodes bytesValue from base64 into a fresh Uint8Array', () => {
    const attributes = [{ key: 'b', value: { bytesValue: 'AAEC+g==' } }];
    const value = decode(oneSpan({ ...sampleSpan(), attributes })).spans[0].attributes.b as Uint8Array;
    expect(value).toEqual(new Uint8Array([0, 1, 2, 250]));
    expect(value.byteOffset).toBe(0);
    expect(value.buffer.byteLength).toBe(4);
  });
});
