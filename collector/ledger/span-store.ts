/**
 * The span role of the ledger: the write-ahead path of received spans (appended before the
 * receiver acknowledges them, replayed at start, released once their interactions are decided)
 * and the late spans that arrived after their interaction was completed. The interactions
 * processor is its user.
 *
 * Durability contract: when `appendSpans` resolves, the spans survive a `kill -9` of the process.
 * The receiver acknowledges an OTLP request only after that.
 */
import type { SpanData } from '../model/span.ts';
import type { SpanBatch } from '../model/span-batch.ts';
import type { EncodedSpans, StoredSpans } from './core/span-codec.ts';

export type { EncodedSpans, LocatedSpans, StoredSpans } from './core/span-codec.ts';
/** Reads stored rows, located or not (on any thread: it needs no store). */
export { isLocated, readStoredSpans } from './core/span-codec.ts';
/** The codec of spans kept as received: one OTLP/protobuf ExportTraceServiceRequest per row. */
export { CODEC_OTLP_PROTOBUF } from './core/span-codec.ts';
/** Decodes what `loadEncodedSpansOfTraces` read (on any thread: it needs no store). */
export { decodeEncodedSpans } from './core/span-codec.ts';

/** A late span: it arrived after the interaction it belongs to was completed. */
/** One trace's spans of an `appendSpans` call, as the store encoded them. */
export interface StoredTraceRow extends EncodedSpans {
  traceId: string;
}

export interface LateSpan {
  interactionId: string;
  span: SpanData;
}

export interface SpanStore {
  /**
   * Whether reading pending spans back is a query to a server (PostgreSQL) rather than a read of
   * local files (SQLite): the interactions processor keeps more of them in memory then.
   */
  readonly readsSpansFromServer: boolean;

  /**
   * Durably stores received spans (the write-ahead path), decoded or as a received batch (whose
   * bytes are stored as received). Resolves once durable: with nothing when a batch's bytes are
   * stored as received, else with the rows stored, one per trace (PostgreSQL compresses them),
   * which a caller keeping spans in memory may keep instead of the received bytes.
   */
  appendSpans(spans: SpanData[] | SpanBatch): Promise<StoredTraceRow[] | undefined>;

  /** Every span stored by `appendSpans` whose trace has not been released: what a restart replays. */
  loadPendingSpans(): Promise<SpanData[]>;

  /**
   * The spans of `loadPendingSpans`, in the same order, handed to `each` a few at a time (a stored
   * row: one trace of one append), so that a restart replays a large backlog in bounded memory.
   */
  forEachPendingSpans(each: (spans: SpanData[]) => void): Promise<void>;

  /** The stored, unreleased spans of one trace. */
  loadTraceSpans(traceId: string): Promise<SpanData[]>;

  /**
   * The stored, unreleased spans of several traces at once (one round trip on a remote store), by
   * trace id, each in the order appended; a trace with none is absent.
   */
  loadSpansOfTraces(traceIds: string[]): Promise<Map<string, SpanData[]>>;

  /**
   * What `loadSpansOfTraces` reads, not decoded: each trace's stored rows in the order appended
   * (`decodeEncodedSpans` gives its spans), so that they can be decoded elsewhere, one trace at a
   * time (the interactions processor's recorder thread).
   */
  loadEncodedSpansOfTraces(traceIds: string[]): Promise<Map<string, EncodedSpans[]>>;

  /**
   * What `loadEncodedSpansOfTraces` reads, but where each row is rather than its bytes when the
   * store keeps it in a file of its own (a SQLite ledger's span log): the reader reads it, on any
   * thread of the process (`readStoredSpans`: the interactions processor's recorder thread, so that
   * the event loop neither reads nor copies the bytes). Rows a store has no file for come with
   * their bytes. The files stay as they are until the answer is let go (`releaseEncodedSpans`),
   * which must then be called.
   */
  locateSpansOfTraces(traceIds: string[]): Promise<Map<string, StoredSpans[]>>;

  /**
   * Lets go of what `loadEncodedSpansOfTraces` or `locateSpansOfTraces` answered, once decoded or
   * copied: a store may read into the same memory again (the views must not be read after), and
   * the located rows' files may go. Optional to call after `loadEncodedSpansOfTraces`.
   */
  releaseEncodedSpans(read: Map<string, StoredSpans[]>): void;

  /** Drops the stored spans of traces whose interactions are all decided. */
  releaseTraces(traceIds: string[]): Promise<void>;

  /** Keeps spans that arrived after their interaction completed. */
  putLateSpans(late: LateSpan[]): Promise<void>;

  /** The late spans kept for one interaction, in the order they arrived; none for an unknown id. */
  loadLateSpans(interactionId: string): Promise<LateSpan[]>;
}
