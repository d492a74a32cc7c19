/**
 * The collector's in-memory form of a received span: what the OTLP decoders produce and what the
 * interaction processor and the ledger consume. Ids are lowercase hex; times are Unix nanoseconds
 * as numbers (a double holds them to within 256 ns, which is finer than any decision made here).
 */

/** An OTLP AnyValue: kvlist becomes a plain object, array an array, bytes a Uint8Array. */
export type AttributeValue =
  | string
  | number
  | boolean
  | Uint8Array
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

export type Attributes = Record<string, AttributeValue>;

/** OTLP Span.SpanKind. */
export const SpanKind = {
  UNSPECIFIED: 0,
  INTERNAL: 1,
  SERVER: 2,
  CLIENT: 3,
  PRODUCER: 4,
  CONSUMER: 5,
} as const;

/** OTLP Status.StatusCode. */
export const StatusCode = { UNSET: 0, OK: 1, ERROR: 2 } as const;

/** OTLP span flags: bit 8 says whether bit 9 (the parent is remote) is known. */
export const SPAN_FLAGS_HAS_IS_REMOTE = 0x100;
export const SPAN_FLAGS_IS_REMOTE = 0x200;

export interface SpanEvent {
  name: string;
  timeUnixNano: number;
  attributes: Attributes;
}

export interface SpanLink {
  traceId: string;
  spanId: string;
  attributes: Attributes;
}

/** What a span was emitted by: shared by every span of one ResourceSpans/ScopeSpans. */
export interface SpanOrigin {
  resource: Attributes;
  scopeName: string;
  scopeVersion?: string;
}

export interface SpanData {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: number;
  endTimeUnixNano: number;
  attributes: Attributes;
  events: SpanEvent[];
  links: SpanLink[];
  status: { code: number; message?: string };
  /** OTLP Span.flags (W3C trace flags in the low byte, the remote-parent bits above). */
  flags: number;
  origin: SpanOrigin;
}

/**
 * What deciding interactions needs of a span before its content: ids, flags, name, scope, and only
 * the attributes that were asked for. A `SpanData` is a `SpanHead` too.
 */
export interface SpanHead {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** Only some attributes (those asked for); a `SpanData`'s are all of them. */
  attributes: Attributes;
  flags: number;
  origin: Pick<SpanOrigin, 'scopeName'>;
}

/** True when the span's flags say that its parent lives in another process. */
export function hasRemoteParent(span: Pick<SpanData, 'flags' | 'parentSpanId'>): boolean {
  return span.parentSpanId !== undefined && (span.flags & SPAN_FLAGS_IS_REMOTE) !== 0;
}

/** True when the span's flags say that its parent is in this process (so it will be exported too). */
export function hasLocalParent(span: Pick<SpanData, 'flags' | 'parentSpanId'>): boolean {
  return (
    span.parentSpanId !== undefined &&
    (span.flags & SPAN_FLAGS_HAS_IS_REMOTE) !== 0 &&
    (span.flags & SPAN_FLAGS_IS_REMOTE) === 0
  );
}

export function nanosToIso(nanos: number): string {
  // A double holds Unix nanoseconds to about 256 ns: round half a step up before truncating to ms.
  return new Date(Math.floor((nanos + 512) / 1e6)).toISOString();
}
