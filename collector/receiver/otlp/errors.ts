/**
 * Errors of the OTLP receiver. Each is a small named class with `cause`; messages read
 * `<where>: <what> (<hint>)`. The receiver maps them to HTTP statuses by class, never by text.
 */

// The request body cannot be decoded at all (400): shared with the ledger, which decodes stored spans.
export { OtlpDecodeError } from '../../model/otlp-decode-error.ts';

/** The body is larger than `max_request_body_size`, on the wire or once decompressed: 413. */
export class BodyTooLargeError extends Error {
  readonly limitBytes: number;
  constructor(message: string, options: { limitBytes: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'BodyTooLargeError';
    this.limitBytes = options.limitBytes;
  }
}

/** The body's Content-Encoding is declared correctly but the bytes do not decompress: 400. */
export class BodyEncodingError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'BodyEncodingError';
  }
}

/** Too many request bytes are already being handled: 429 with Retry-After. */
export class InFlightLimitError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'InFlightLimitError';
  }
}

/** The client went away before its body arrived; there is nobody left to answer. */
export class RequestAbortedError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'RequestAbortedError';
  }
}

/** The receiver cannot start (the port is taken, the host does not resolve). */
export class ReceiverStartError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ReceiverStartError';
  }
}
