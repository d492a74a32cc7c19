/**
 * A raw grpc-js client of the OTLP TraceService for tests: sends any bytes (valid, malformed,
 * oversize) and returns the status, trailers and response bytes, so tests see exactly what an
 * exporter would.
 */
import {
  credentials,
  makeGenericClientConstructor,
  Metadata,
  status as GrpcStatus,
  type ServiceError,
} from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { TRACE_EXPORT_PATH } from '../../collector/receiver/otlp/grpc/index.ts';

const passThrough = (bytes: Buffer): Buffer => bytes;
const TraceServiceClient = makeGenericClientConstructor(
  {
    Export: {
      path: TRACE_EXPORT_PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: passThrough,
      requestDeserialize: passThrough,
      responseSerialize: passThrough,
      responseDeserialize: passThrough,
    },
  },
  'TraceService',
);

export interface ExportResult {
  code: GrpcStatus;
  details: string;
  /** Response bytes (OK only). */
  body?: Buffer;
  trailers?: Metadata;
}

/** The generic client's unary Export method, on raw bytes. */
type ExportMethod = (
  body: Buffer,
  metadata: Metadata,
  callback: (error: ServiceError | null, response?: Buffer) => void,
) => void;

export interface RawTraceClient {
  export(body: Uint8Array, metadata?: Record<string, string>): Promise<ExportResult>;
  close(): void;
}

export function createRawTraceClient(port: number, options: { gzip?: boolean } = {}): RawTraceClient {
  const client = new TraceServiceClient(`127.0.0.1:${port}`, credentials.createInsecure(), {
    'grpc.default_compression_algorithm': options.gzip ? 2 : 0,
    // The receiver, not this client, must be the one refusing large messages.
    'grpc.max_send_message_length': -1,
  });
  return {
    export(body, metadata = {}) {
      const sent = new Metadata();
      for (const [key, value] of Object.entries(metadata)) sent.set(key, value);
      return new Promise((resolve) => {
        (client as unknown as { Export: ExportMethod }).Export(
          Buffer.from(body),
          sent,
          (error: ServiceError | null, response?: Buffer) => {
            if (error) resolve({ code: error.code, details: error.details, trailers: error.metadata });
            else resolve({ code: GrpcStatus.OK, details: 'OK', body: response });
          },
        );
      });
    },
    close: () => client.close(),
  };
}

const schema = protobuf.Root.fromJSON({
  nested: {
    Response: { fields: { partialSuccess: { id: 1, type: 'Partial' } } },
    Partial: { fields: { rejectedSpans: { id: 1, type: 'int64' }, errorMessage: { id: 2, type: 'string' } } },
    Status: {
      fields: {
        code: { id: 1, type: 'int32' },
        message: { id: 2, type: 'string' },
        details: { id: 3, type: 'Any', rule: 'repeated' },
      },
    },
    Any: { fields: { typeUrl: { id: 1, type: 'string' }, value: { id: 2, type: 'bytes' } } },
    RetryInfo: { fields: { retryDelay: { id: 1, type: 'Duration' } } },
    Duration: { fields: { seconds: { id: 1, type: 'int64' }, nanos: { id: 2, type: 'int32' } } },
    BadRequest: { fields: { fieldViolations: { id: 1, type: 'FieldViolation', rule: 'repeated' } } },
    FieldViolation: { fields: { field: { id: 1, type: 'string' }, description: { id: 2, type: 'string' } } },
  },
});

/** ExportTraceServiceResponse's partial_success, with rejected_spans as a number. */
export function decodePartialSuccess(body: Buffer): { rejectedSpans: number; errorMessage: string } | undefined {
  const response = schema
    .lookupType('Response')
    .toObject(schema.lookupType('Response').decode(body), { longs: Number });
  return response.partialSuccess as { rejectedSpans: number; errorMessage: string } | undefined;
}

export interface StatusDetails {
  code: number;
  message: string;
  retryDelaySeconds?: number;
  fieldViolation?: { field: string; description: string };
}

/** The google.rpc.Status of the `grpc-status-details-bin` trailer, with its detail decoded. */
export function statusDetails(trailers: Metadata | undefined): StatusDetails | undefined {
  const [bytes] = trailers?.get('grpc-status-details-bin') ?? [];
  if (!(bytes instanceof Buffer)) return undefined;
  const Status = schema.lookupType('Status');
  const status = Status.toObject(Status.decode(bytes), { longs: Number }) as {
    code: number;
    message: string;
    details?: { typeUrl: string; value: Uint8Array }[];
  };
  const result: StatusDetails = { code: status.code, message: status.message };
  for (const detail of status.details ?? []) {
    if (detail.typeUrl.endsWith('google.rpc.RetryInfo')) {
      const info = schema.lookupType('RetryInfo');
      result.retryDelaySeconds = (
        info.toObject(info.decode(detail.value), { longs: Number }) as { retryDelay: { seconds: number } }
      ).retryDelay.seconds;
    }
    if (detail.typeUrl.endsWith('google.rpc.BadRequest')) {
      const badRequest = schema.lookupType('BadRequest');
      result.fieldViolation = (
        badRequest.toObject(badRequest.decode(detail.value)) as {
          fieldViolations: { field: string; description: string }[];
        }
      ).fieldViolations[0];
    }
  }
  return result;
}
