/**
 * A request body that cannot be decoded as OTLP at all (the receiver answers 400, not retryable).
 * Thrown by both encodings' decoders; the receiver re-exports it with its other errors.
 */
export class OtlpDecodeError extends Error {
  /** Where in the request the problem is (`resourceSpans[0].scopeSpans`), when known. */
  readonly field?: string;
  constructor(message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'OtlpDecodeError';
    this.field = options.field;
  }
}
