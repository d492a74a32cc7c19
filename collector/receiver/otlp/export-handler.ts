/**
 * One POST /v1/traces, from headers to answer. The order of checks is deliberate: cheap header
 * checks first (path, method, token, content type, encoding, declared size, in-flight budget),
 * so that a request that will be refused is refused before its body is read. Success (200) is
 * sent only after `next.consume` resolved: that is when the spans are durable (stored, then
 * acknowledged: docs/interactions.md).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BackpressureError, type SpanConsumer } from '../../pipeline/consumer.ts';
import type { OtlpReceiverHooks } from './config.ts';
import {
  ACCEPTED_CONTENT_ENCODINGS,
  ACCEPTED_CONTENT_TYPES,
  formatOfContentType,
  parseContentEncoding,
} from './content-negotiation.ts';
import { createKeyMatcher } from '../../model/otlp-protobuf/key-matcher.ts';
import { receiveTraceRequest, type OtlpFormat, type ReceivedTraceRequest } from './decode.ts';
import { RpcCode, encodeExportResponse } from './encode-response.ts';
import {
  BodyEncodingError,
  BodyTooLargeError,
  InFlightLimitError,
  OtlpDecodeError,
  RequestAbortedError,
} from './errors.ts';
import { reply, replyStatus } from './http-reply.ts';
import type { InFlightBudget } from './in-flight-budget.ts';
import { readBody, releaseBody } from './read-body.ts';
import { threadBufferPool } from '../../model/buffer-pool.ts';
import { refusalReasonOfStatus } from './refusals.ts';

export const TRACES_PATH = '/v1/traces';
/** Retry-After when the receiver is full of requests: they drain within about a second. */
const RETRY_AFTER_IN_FLIGHT_SECONDS = 1;
/** Retry-After when storing failed for a reason the consumer did not classify, or on shutdown. */
const RETRY_AFTER_FAILURE_SECONDS = 5;

export interface ExportHandlerOptions {
  maxRequestBodyBytes: number;
  isAuthorized(authorization: string | undefined): boolean;
  budget: InFlightBudget;
  next: SpanConsumer;
  hooks: OtlpReceiverHooks;
  isShuttingDown(): boolean;
}

export type ExportHandler = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => Promise<void>;

export function createExportHandler(options: ExportHandlerOptions): ExportHandler {
  const { maxRequestBodyBytes, budget, next, hooks } = options;
  const headAttributes = createKeyMatcher(next.headAttributes ?? new Set());
  // Request bodies and their cuts by trace, used again rather than allocated for every request.
  const pool = threadBufferPool();

  return async function handleExport(req, res, expectsContinue) {
    const contentType = req.headers['content-type'];
    const format = formatOfContentType(contentType);
    // Answers use the request's encoding when it has a known one, JSON otherwise.
    const answerFormat: OtlpFormat = format ?? 'json';
    /** Answers a refusal and counts it: `spans` refused (1 when the body was not decoded). */
    const refuse = (httpStatus: number, code: number, message: string, headers?: Record<string, string>, spans = 1) => {
      hooks.onRefused?.(refusalReasonOfStatus(httpStatus), spans);
      return replyStatus(req, res, httpStatus, answerFormat, { code, message }, headers);
    };

    const path = pathOf(req.url);
    if (path !== TRACES_PATH) {
      return refuse(
        404,
        RpcCode.NOT_FOUND,
        `otlp receiver: no endpoint at ${path} (traces are received at POST ${TRACES_PATH})`,
      );
    }
    if (req.method !== 'POST') {
      return refuse(
        405,
        RpcCode.UNIMPLEMENTED,
        `otlp receiver: ${req.method} is not allowed on ${TRACES_PATH} (use POST)`,
        {
          Allow: 'POST',
        },
      );
    }
    if (options.isShuttingDown()) {
      return refuse(
        503,
        RpcCode.UNAVAILABLE,
        'otlp receiver: shutting down (retry against another instance or later)',
        {
          'Retry-After': String(RETRY_AFTER_FAILURE_SECONDS),
          Connection: 'close',
        },
      );
    }
    if (!options.isAuthorized(req.headers.authorization)) {
      return refuse(
        401,
        RpcCode.UNAUTHENTICATED,
        'otlp receiver: missing or wrong bearer token (send Authorization: Bearer <token>)',
        {
          'WWW-Authenticate': 'Bearer',
        },
      );
    }
    if (format === undefined) {
      return refuse(
        415,
        RpcCode.INVALID_ARGUMENT,
        `otlp receiver: unsupported Content-Type ${contentType ?? '(none)'} (send ${ACCEPTED_CONTENT_TYPES})`,
      );
    }
    const encoding = parseContentEncoding(req.headers['content-encoding']);
    if (encoding === undefined) {
      return refuse(
        415,
        RpcCode.INVALID_ARGUMENT,
        `otlp receiver: unsupported Content-Encoding ${req.headers['content-encoding']} (send ` +
          `${ACCEPTED_CONTENT_ENCODINGS})`,
      );
    }
    const declaredBytes = Number(req.headers['content-length'] ?? 0);
    if (declaredBytes > maxRequestBodyBytes) {
      return refuse(413, RpcCode.RESOURCE_EXHAUSTED, tooLargeMessage(maxRequestBodyBytes));
    }
    const overloaded = () =>
      refuse(429, RpcCode.RESOURCE_EXHAUSTED, 'otlp receiver: too many request bytes in flight (retry shortly)', {
        'Retry-After': String(RETRY_AFTER_IN_FLIGHT_SECONDS),
      });
    const reservation = budget.admit(declaredBytes);
    if (reservation === undefined) return overloaded();

    try {
      if (expectsContinue) res.writeContinue();
      let body: Buffer;
      try {
        body = await readBody(req, {
          encoding,
          maxBytes: maxRequestBodyBytes,
          onHeld: (bytes) => reservation.grow(bytes),
          pool,
        });
      } catch (error) {
        if (error instanceof BodyTooLargeError) return await refuse(413, RpcCode.RESOURCE_EXHAUSTED, error.message);
        if (error instanceof BodyEncodingError) return await refuse(400, RpcCode.INVALID_ARGUMENT, error.message);
        if (error instanceof InFlightLimitError) return await overloaded();
        if (error instanceof RequestAbortedError) return; // nobody is left to answer
        throw error;
      }

      let received: ReceivedTraceRequest;
      try {
        received = receiveTraceRequest(body, format, headAttributes, pool);
      } catch (error) {
        if (!(error instanceof OtlpDecodeError)) throw error;
        hooks.onRefused?.('bad_request', 1);
        return await replyStatus(req, res, 400, format, {
          code: RpcCode.INVALID_ARGUMENT,
          message: error.message,
          fieldViolation: { field: error.field ?? '', description: error.message },
        });
      } finally {
        // The batch holds copies of what it needs: the raw body goes now, not while it is stored.
        releaseBody(body, pool);
      }

      const { batch, rejectedSpans, rejectionMessage } = received;
      // An empty batch (or one whose every span was refused) has nothing to store: no consume call.
      if (batch.spanCount > 0) {
        try {
          await next.consume(batch);
        } catch (error) {
          return await refuseUnstored(error, batch.spanCount);
        } finally {
          batch.release();
        }
      }
      hooks.onReceived?.(batch.spanCount, rejectedSpans);
      if (rejectedSpans > 0) hooks.onRefused?.('bad_request', rejectedSpans);
      const partial = rejectionMessage === undefined ? undefined : { rejectedSpans, errorMessage: rejectionMessage };
      return await reply(req, res, 200, format, encodeExportResponse(format, partial));
    } finally {
      reservation.release();
    }

    /** The spans were not stored: tell the client to retry (OTLP's retryable 429/503). */
    function refuseUnstored(error: unknown, count: number): Promise<void> {
      if (error instanceof BackpressureError) {
        return refuse(
          error.status,
          error.status === 429 ? RpcCode.RESOURCE_EXHAUSTED : RpcCode.UNAVAILABLE,
          `otlp receiver: ${error.message}`,
          {
            'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterSeconds))),
          },
          count,
        );
      }
      const what = error instanceof Error ? error.message : String(error);
      hooks.logger?.warn(`otlp receiver: storing ${count} spans failed, answered 503 so the client retries (${what})`);
      return refuse(
        503,
        RpcCode.UNAVAILABLE,
        'otlp receiver: the spans could not be stored (retry later)',
        { 'Retry-After': String(RETRY_AFTER_FAILURE_SECONDS) },
        count,
      );
    }
  };
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

function tooLargeMessage(limit: number): string {
  return (
    `request body: larger than ${limit} bytes (raise receivers::otlp::protocols::http::max_request_body_size, ` +
    'or send smaller batches)'
  );
}
