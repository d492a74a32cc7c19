/**
 * One TraceService/Export call, from metadata to answer: the gRPC twin of ../export-handler.ts,
 * with the same order (cheap checks before decoding: shutdown, token, in-flight budget), the same
 * decoder and the same rule: OK only after `next.consume` resolved, i.e. once the spans are
 * durable (stored, then acknowledged: docs/interactions.md). What differs is only how outcomes are
 * spelled: gRPC status codes (the OTLP specification's mapping) instead of HTTP ones.
 *
 * | outcome | HTTP | gRPC |
 * |---|---|---|
 * | undecodable request | 400 | INVALID_ARGUMENT (+ BadRequest detail) |
 * | missing/wrong token | 401 | UNAUTHENTICATED |
 * | too many bytes in flight, backpressure, store failure, shutting down | 429 / 503 | UNAVAILABLE (+ RetryInfo) |
 * | message too large | 413 | RESOURCE_EXHAUSTED (sent by grpc-js before this code runs) |
 */
import { status as GrpcStatus, type Metadata, type ServerUnaryCall } from '@grpc/grpc-js';
import { BackpressureError, type SpanConsumer } from '../../../pipeline/consumer.ts';
import type { OtlpReceiverHooks } from '../config.ts';
import { createKeyMatcher } from '../../../model/otlp-protobuf/key-matcher.ts';
import { threadBufferPool } from '../../../model/buffer-pool.ts';
import { receiveTraceRequest, type ReceivedTraceRequest } from '../decode.ts';
import { OtlpDecodeError } from '../errors.ts';
import type { InFlightBudget } from '../in-flight-budget.ts';
import type { RefusalReason } from '../refusals.ts';
import { badRequestTrailers, retryInfoTrailers } from './status-details.ts';
import type { ExportTraceServiceResponse } from './trace-service.ts';

/** Retry delay when the receiver is full of requests: they drain within about a second. */
const RETRY_AFTER_IN_FLIGHT_SECONDS = 1;
/** Retry delay when storing failed for a reason the consumer did not classify, or on shutdown. */
const RETRY_AFTER_FAILURE_SECONDS = 5;

/** The reason each refusing status is counted under (refusals.ts). */
const REFUSAL_OF_STATUS: Partial<Record<GrpcStatus, RefusalReason>> = {
  [GrpcStatus.UNAUTHENTICATED]: 'auth',
  [GrpcStatus.INVALID_ARGUMENT]: 'bad_request',
  [GrpcStatus.UNAVAILABLE]: 'throttled',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'too_large',
};

export interface ExportCallOptions {
  isAuthorized(authorization: string | undefined): boolean;
  budget: InFlightBudget;
  next: SpanConsumer;
  hooks: OtlpReceiverHooks;
  isShuttingDown(): boolean;
}

/** A refused call: what grpc-js's unary callback takes as its error. */
export interface ExportFailure {
  code: GrpcStatus;
  details: string;
  metadata?: Metadata;
}

export type ExportAnswer = { ok: true; response: ExportTraceServiceResponse } | { ok: false; failure: ExportFailure };

export type ExportCallHandler = (call: ServerUnaryCall<Buffer, ExportTraceServiceResponse>) => Promise<ExportAnswer>;

export function createExportCallHandler(options: ExportCallOptions): ExportCallHandler {
  const { budget, next, hooks } = options;
  const headAttributes = createKeyMatcher(next.headAttributes ?? new Set());
  // Cuts by trace, used again rather than allocated for every request.
  const pool = threadBufferPool();
  /** A refused call, counted: `spans` refused (1 when the message was not decoded). */
  const refuse = (code: GrpcStatus, details: string, metadata?: Metadata, spans = 1): ExportAnswer => {
    hooks.onRefused?.(REFUSAL_OF_STATUS[code] ?? 'bad_request', spans);
    return { ok: false, failure: { code, details, ...(metadata ? { metadata } : {}) } };
  };
  const unavailable = (details: string, retryAfterSeconds: number, spans = 1) =>
    refuse(
      GrpcStatus.UNAVAILABLE,
      details,
      retryInfoTrailers(GrpcStatus.UNAVAILABLE, details, retryAfterSeconds),
      spans,
    );

  return async function handleExport(call) {
    if (options.isShuttingDown()) {
      return unavailable(
        'otlp grpc receiver: shutting down (retry against another instance or later)',
        RETRY_AFTER_FAILURE_SECONDS,
      );
    }
    const [authorization] = call.metadata.get('authorization');
    if (!options.isAuthorized(typeof authorization === 'string' ? authorization : undefined)) {
      return refuse(
        GrpcStatus.UNAUTHENTICATED,
        'otlp grpc receiver: missing or wrong bearer token (send metadata authorization: Bearer <token>)',
      );
    }
    let body: Buffer | undefined = call.request;
    const reservation = budget.admit(body.byteLength);
    if (reservation === undefined) {
      return unavailable(
        'otlp grpc receiver: too many request bytes in flight (retry shortly)',
        RETRY_AFTER_IN_FLIGHT_SECONDS,
      );
    }
    try {
      let received: ReceivedTraceRequest;
      try {
        received = receiveTraceRequest(body, 'protobuf', headAttributes, pool);
        body = undefined; // the batch holds what it needs
      } catch (error) {
        if (!(error instanceof OtlpDecodeError)) throw error;
        const violation = { field: error.field ?? '', description: error.message };
        return refuse(
          GrpcStatus.INVALID_ARGUMENT,
          error.message,
          badRequestTrailers({ code: GrpcStatus.INVALID_ARGUMENT, message: error.message, fieldViolation: violation }),
        );
      }

      const { batch, rejectedSpans, rejectionMessage } = received;
      // An empty batch (or one whose every span was refused) has nothing to store: no consume call.
      if (batch.spanCount > 0) {
        try {
          await next.consume(batch);
        } catch (error) {
          return refuseUnstored(error, batch.spanCount);
        } finally {
          batch.release();
        }
      }
      hooks.onReceived?.(batch.spanCount, rejectedSpans);
      if (rejectedSpans > 0) hooks.onRefused?.('bad_request', rejectedSpans);
      const response =
        rejectionMessage === undefined ? {} : { partialSuccess: { rejectedSpans, errorMessage: rejectionMessage } };
      return { ok: true, response };
    } finally {
      reservation.release();
    }
  };

  /** The spans were not stored: UNAVAILABLE, which OTLP exporters retry (after RetryInfo's delay). */
  function refuseUnstored(error: unknown, count: number): ExportAnswer {
    if (error instanceof BackpressureError)
      return unavailable(`otlp grpc receiver: ${error.message}`, error.retryAfterSeconds, count);
    const what = error instanceof Error ? error.message : String(error);
    hooks.logger?.warn(
      `otlp grpc receiver: storing ${count} spans failed, answered UNAVAILABLE so the client retries (${what})`,
    );
    return unavailable(
      'otlp grpc receiver: the spans could not be stored (retry later)',
      RETRY_AFTER_FAILURE_SECONDS,
      count,
    );
  }
}
