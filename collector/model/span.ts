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
  /**
   * When the receiver read the span as bytes: the span id's 8 bytes as two big-endian 32-bit
   * integers, and the parent id's (undefined without a parent), which is how the assembler keeps
   * ids. `spanId` and `parentSpanId` are then written out as hex only if they are read.
   */
  readonly spanIdHigh?: number;
  readonly spanIdLow?: number;
  readonly parentIdHigh?: number;
  readonly parentIdLow?: number;
}

const HEX_DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

/**
 * The 16 hex characters of a span id kept as two big-endian 32-bit halves (`SpanHead.spanIdHigh`,
 * the assembler's spans), made as one flat string.
 */
export function hexId(high: number, low: number): string {
  const h = high >>> 0;
  const l = low >>> 0;
  const d = HEX_DIGITS;
  return String.fromCharCode(
    d[h >>> 28],
    d[(h >>> 24) & 15],
    d[(h >>> 20) & 15],
    d[(h >>> 16) & 15],
    d[(h >>> 12) & 15],
    d[(h >>> 8) & 15],
    d[(h >>> 4) & 15],
    d[h & 15],
    d[l >>> 28],
    d[(l >>> 24) & 15],
    d[(l >>> 20) & 15],
    d[(l >>> 16) & 15],
    d[(l >>> 12) & 15],
    d[(l >>> 8) & 15],
    d[(l >>> 4) & 15],
    d[l & 15],
  );
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

const DAY_MS = 86_400_000;

export function nanosToIso(nanos: number): string {
  // A double holds Unix nanoseconds to about 256 ns: round half a step up before truncating to ms.
  const ms = Math.floor((nanos + 512) / 1e6);
  // Years 1970–9999 are written here, as Date#toISOString writes them (~5x faster: called for
  // every transcript entry of every record); anything else by Date itself.
  if (!(ms >= 0 && ms < 253_402_300_800_000)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // The civil date of a day count (H. Hinnant's days_from_civil, inverted).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  const date = `${year}-${pad(month, 2)}-${pad(day, 2)}`;
  return `${date}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(millis, 3)}Z`;
}

function pad(value: number, width: number): string {
  const text = String(value);
  return text.length >= width ? text : '0'.repeat(width - text.length) + text;
}
