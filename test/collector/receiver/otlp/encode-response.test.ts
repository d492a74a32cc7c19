/**
 * Response bodies, read back by the OTel JS SDK's own response deserializers (what real clients
 * run) and, for google.rpc.Status, by a protobufjs schema of status.proto.
 */
import protobuf from 'protobufjs';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import { RpcCode, encodeExportResponse, encodeStatus } from '../../../../collector/receiver/otlp/index.ts';

const rpc = protobuf.Root.fromJSON({
  nested: {
    Status: {
      fields: {
        code: { id: 1, type: 'int32' },
        message: { id: 2, type: 'string' },
        details: { id: 3, type: 'Any', rule: 'repeated' },
      },
    },
    Any: { fields: { typeUrl: { id: 1, type: 'string' }, value: { id: 2, type: 'bytes' } } },
    BadRequest: { fields: { fieldViolations: { id: 1, type: 'FieldViolation', rule: 'repeated' } } },
    FieldViolation: { fields: { field: { id: 1, type: 'string' }, description: { id: 2, type: 'string' } } },
  },
});

describe('export responses', () => {
  it('encodes success as an empty message: 0 bytes in protobuf, {} in JSON', () => {
    expect(encodeExportResponse('protobuf')).toHaveLength(0);
    expect(Buffer.from(encodeExportResponse('json')).toString()).toBe('{}');
  });

  it('encodes partial success so that the OTel SDK reads the rejected count and message', () => {
    const partial = { rejectedSpans: 3, errorMessage: 'resourceSpans[0].scopeSpans[0].spans[1]: traceId is missing' };
    const fromProtobuf = ProtobufTraceSerializer.deserializeResponse(encodeExportResponse('protobuf', partial));
    expect(Number(fromProtobuf.partialSuccess?.rejectedSpans)).toBe(3);
    expect(fromProtobuf.partialSuccess?.errorMessage).toBe(partial.errorMessage);
    const fromJson = JsonTraceSerializer.deserializeResponse(encodeExportResponse('json', partial));
    expect(fromJson).toEqual({ partialSuccess: { rejectedSpans: '3', errorMessage: partial.errorMessage } });
  });

  it('encodes a warning (nothing rejected, a message) in both encodings', () => {
    const warning = { rejectedSpans: 0, errorMessage: 'resource_spans was ignored' };
    const fromProtobuf = ProtobufTraceSerializer.deserializeResponse(encodeExportResponse('protobuf', warning));
    expect(fromProtobuf.partialSuccess?.errorMessage).toBe('resource_spans was ignored');
    expect(Number(fromProtobuf.partialSuccess?.rejectedSpans ?? 0)).toBe(0);
  });
});

describe('google.rpc.Status', () => {
  const status = {
    code: RpcCode.INVALID_ARGUMENT,
    message: 'json: resourceSpans[0].scopeSpans must be an array (got an object)',
    fieldViolation: { field: 'resourceSpans[0].scopeSpans', description: 'must be an array (got an object)' },
  };

  it('encodes code, message and a BadRequest detail in protobuf', () => {
    const decoded = rpc.lookupType('Status').decode(encodeStatus('protobuf', status)) as unknown as {
      code: number;
      message: string;
      details: { typeUrl: string; value: Uint8Array }[];
    };
    expect(decoded.code).toBe(3);
    expect(decoded.message).toBe(status.message);
    expect(decoded.details).toHaveLength(1);
    expect(decoded.details[0].typeUrl).toBe('type.googleapis.com/google.rpc.BadRequest');
    const badRequest = rpc.lookupType('BadRequest').decode(decoded.details[0].value) as unknown as {
      fieldViolations: unknown[];
    };
    expect(badRequest.fieldViolations).toEqual([expect.objectContaining(status.fieldViolation)]);
  });

  it('encodes the same in JSON, with the detail as an Any carrying @type', () => {
    expect(JSON.parse(Buffer.from(encodeStatus('json', status)).toString())).toEqual({
      code: 3,
      message: status.message,
      details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [status.fieldViolation] }],
    });
    expect(JSON.parse(Buffer.from(encodeStatus('json', { code: 14, message: 'later' })).toString())).toEqual({
      code: 14,
      message: 'later',
      details: [],
    });
  });

  it('keeps messages short enough for the 4 MiB response cap', () => {
    const long = encodeStatus('json', { code: 3, message: 'x'.repeat(10_000_000) });
    expect(long.length).toBeLessThan(10_000);
  });
});
