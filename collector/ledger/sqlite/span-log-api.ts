/**
 * What the span log of a SQLite ledger offers (span-log.ts): appends, releases, reads of what is
 * not released yet, and its upkeep.
 */
import type { EncodedSpans, StoredSpans } from '../core/span-codec.ts';
import type { SpanRow } from '../core/rows.ts';

export interface SpanLog {
  /** Appends rows (one trace each); resolves once written (and synced with `full`). */
  append(rows: readonly SpanRow[]): Promise<void>;
  /** Releases every frame of these traces; resolves once the release is written. */
  release(traceIds: readonly string[]): Promise<void>;
  /**
   * The unreleased rows of each trace with any, in the order appended: views of buffers read for
   * them, valid until given back with `giveBack` (or, if never given back, until collected).
   */
  rowsOf(traceIds: Iterable<string>): Map<string, EncodedSpans[]>;
  /**
   * Where the unreleased rows of each trace with any are, in the order appended, for a reader on
   * any thread (`readStoredSpans`): their files stay open and on disk until given back.
   */
  locate(traceIds: Iterable<string>): Map<string, StoredSpans[]>;
  /**
   * Lets go of what `rowsOf` or `locate` answered: buffers read into are read into again, and the
   * files located are free to go once nothing else needs them.
   */
  giveBack(rows: Map<string, StoredSpans[]>): void;
  /** Every unreleased row in the order appended, one at a time. */
  eachRow(each: (row: EncodedSpans & { traceId: string }) => void): void;
  has(traceId: string): boolean;
  /**
   * Deletes the segments nothing needs (found so at start: all their frames released) and copies
   * forward a mostly released one: for the process that writes the log, never a reader beside it.
   */
  tidy(): void;
  /** Bytes of the log's files. */
  readonly bytes: number;
  /** Waits for writes in flight, syncs, and closes the files. Safe twice. */
  close(): Promise<void>;
}
