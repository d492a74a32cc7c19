/**
 * The write-ahead log of received spans of a SQLite ledger file: the spans acknowledged and not yet
 * released, in segment files of a folder beside the ledger (`<ledger>-spans/`), instead of rows
 * of the ledger's own tables. An acknowledged request's spans are one write to the end of a
 * file: not a B-tree insert of tens of kilobytes, written once to the WAL, copied again into the
 * ledger file and deleted seconds later (what SQLite did before, docs/benchmarks.md "Ingest").
 *
 * - Appends are group-committed: while one write is in flight the next ones wait and go in one
 *   `writev`. A write resolves once it is in the file (it survives a crash or `kill -9` of the
 *   process). `synchronous: 'full'` syncs the file before resolving; `normal` syncs it in the
 *   background, as the ledger's checkpoints sync its WAL (span-log-sync.ts).
 * - A release writes a release frame (span-log-frames.ts) naming each trace and the highest
 *   sequence number released; its frames are released wherever they are, so a restart replays
 *   exactly the unreleased spans.
 * - A segment with no live frame is deleted, once every segment holding frames its release
 *   frames cover is gone (so a restart never finds a released frame without its release). A sealed
 *   segment mostly released (COMPACT_BELOW) has its live frames copied forward, then goes, once
 *   none of its frames has been released for a while (COMPACT_QUIET_MS).
 *
 * The index (trace → frames) lives in memory and is built by reading the folder on first use
 * (span-log-scan.ts); reads are positioned reads of the files. Only the collector that holds the
 * ledger writes the log; other processes (`evalon ledger prune --dry-run`) only read it.
 */
import { closeSync, mkdirSync, openSync, unlink } from 'node:fs';
import { LedgerStoreError } from '../errors.ts';
import { isLocated, type EncodedSpans, type LocatedSpans } from '../core/span-codec.ts';
import { FRAME_HEADER_BYTES, FRAME_MAGIC, releaseFrame, spansFrameHeader } from './span-log-frames.ts';
import { scanSpanLog, segmentPath } from './span-log-scan.ts';
import type { Synchronous } from './open-database.ts';
import { createSegmentSync } from './span-log-sync.ts';
import { createFrameReader } from './span-log-reads.ts';
import { createSegmentWrites } from './span-log-writes.ts';
import {
  addFrame,
  everyFrame,
  framesIn,
  framesOf,
  keepFrames,
  moveFrame,
  newSegment,
  type Frame,
  type Segment,
  type SpanLogState,
} from './span-log-index.ts';
import type { SpanLog } from './span-log-api.ts';

export type { SpanLog } from './span-log-api.ts';

/** A segment is sealed and a new one started past this size. */
export const SPAN_LOG_SEGMENT_BYTES = 64 * 1024 * 1024;
/** A sealed segment whose live frames are at most this share of it is copied forward and deleted. */
export const COMPACT_BELOW = 0.25;
/**
 * ... once none of its frames has been released for this long. While a backlog is recorded, a
 * sealed segment is released a little at a time until nothing of it is left: copying its last
 * quarter forward read it on the event loop and wrote it again, for traces released a moment later
 * (docs/benchmarks.md, "Ingest"). Frames that stay this long belong to traces pending long.
 */
export const COMPACT_QUIET_MS = 5_000;

/**
 * A frame at `offset` of `segment`. Written out, not spread: an object spread into has four
 * properties inside it and the rest in a second object (~24 bytes more a pending trace).
 */
function frameAt(frame: Omit<Frame, 'segment' | 'offset'>, segment: Segment, offset: number): Frame {
  const { traceId, length, codec, seq, idLength } = frame;
  return { traceId, segment, offset, length, codec, seq, idLength };
}

/** The folder of a ledger file's span log. */
export function spanLogDir(ledgerPath: string): string {
  return `${ledgerPath}-spans`;
}

export function openSpanLog(options: {
  dir: string;
  synchronous: Synchronous;
  /** The ledger, as errors name it. */
  where: string;
  segmentBytes?: number;
  compactQuietMs?: number;
}): SpanLog {
  const { dir, synchronous, where } = options;
  const segmentBytes = options.segmentBytes ?? SPAN_LOG_SEGMENT_BYTES;
  const compactQuietMs = options.compactQuietMs ?? COMPACT_QUIET_MS;
  let state: SpanLogState | undefined;
  let head: Segment | undefined;
  let compacting = false;
  /** A compaction waiting for a segment's quiet time to pass. */
  let compactLater: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;
  const sync = createSegmentSync(synchronous, () => collect());

  const fail = (what: string, error: unknown) =>
    new LedgerStoreError(`ledger ${where}: span log ${dir}: ${what}: ${(error as Error).message}`, { cause: error });

  function loaded(): SpanLogState {
    state ??= scanSpanLog(dir, where);
    return state;
  }

  function open(): SpanLogState {
    if (closing) throw new LedgerStoreError(`ledger ${where}: the store is closed`);
    return loaded();
  }

  const { readFrames, giveBack: giveBackRead } = createFrameReader(where);
  const readFrame = (frame: Frame): Buffer => readFrames([frame]).get(frame)!;

  /** Pinned segments by file descriptor (a pinned file is never closed, so its descriptor is its own). */
  const pinned = new Map<number, Segment>();

  const locatedRow = (frame: Frame): LocatedSpans => ({
    codec: frame.codec,
    fd: frame.segment.fd,
    position: frame.offset,
    length: frame.length,
    skip: FRAME_HEADER_BYTES + frame.idLength,
    magic: FRAME_MAGIC,
    file: frame.segment.path,
  });

  const rowOf = (frame: Frame, bytes: Buffer): EncodedSpans => ({
    codec: frame.codec,
    bytes: bytes.subarray(FRAME_HEADER_BYTES + frame.idLength),
  });

  const writes = createSegmentWrites({
    headFor,
    written: (segment) => sync.written(segment),
    torn(segment) {
      if (head === segment) head = undefined;
    },
    fail,
  });
  const write = writes.write;

  /** The segment the next write of `bytes` goes to: a new one past the segment size. */
  function headFor(bytes: number): Segment {
    const { segments } = loaded();
    if (head && (head.size === 0 || head.size + bytes <= segmentBytes)) return head;
    const id = loaded().nextSegmentId++;
    const path = segmentPath(dir, id);
    let fd: number;
    try {
      mkdirSync(dir, { recursive: true });
      fd = openSync(path, 'wx+');
      sync.created(dir);
    } catch (error) {
      throw fail(`cannot create ${path}`, error);
    }
    head = newSegment(id, path, fd, performance.now());
    segments.set(id, head);
    return head;
  }

  /** Deletes the segments nothing needs any more (see the header). */
  function collect(): void {
    const { segments } = loaded();
    for (let changed = true; changed; ) {
      changed = false;
      for (const segment of segments.values()) {
        if (segment === head || segment.liveFrames > 0 || segment.pins > 0 || sync.busy(segment)) continue;
        if ([...segment.covers].some((covered) => !covered.deleted)) continue;
        try {
          closeSync(segment.fd);
        } catch {
          // Already closed: nothing to give back.
        }
        // Freeing a file of tens of megabytes takes the kernel a while: not on the event loop. A
        // file left on disk is read again at the next start, where its frames are all released.
        unlink(segment.path, () => {});
        segment.deleted = true;
        sync.forget(segment);
        segments.delete(segment.id);
        changed = true;
      }
    }
  }

  /** A sealed segment mostly released, quiet since `now`; else when the next one will be, if any. */
  function compactable(now: number): Segment | number | undefined {
    let quietAt: number | undefined;
    for (const segment of loaded().segments.values()) {
      if (segment === head || segment.liveFrames === 0 || segment.liveBytes > segment.size * COMPACT_BELOW) continue;
      const at = segment.releasedAtMs + compactQuietMs;
      if (at <= now) return segment;
      quietAt = Math.min(quietAt ?? at, at);
    }
    return quietAt;
  }

  /** Copies forward the live frames of one sealed segment that is mostly released and quiet. */
  function compact(): void {
    if (compacting || closing) return;
    const now = performance.now();
    const victim = compactable(now);
    if (victim === undefined) return;
    if (typeof victim === 'number') {
      compactLater ??= setTimeout(() => {
        compactLater = undefined;
        compact();
      }, victim - now).unref();
      return;
    }
    compacting = true;
    const frames = framesIn(loaded(), victim);
    let parts: Buffer[];
    try {
      parts = frames.map(readFrame);
    } catch {
      compacting = false; // a damaged frame stays where it is, reported when its trace is read
      return;
    }
    const copied = write(parts, (segment, offset) => {
      const gone: { traceId: string; seq: number }[] = [];
      let at = offset;
      for (const frame of frames) {
        const moved = frameAt(frame, segment, at);
        at += frame.length;
        // Released meanwhile: its copy is too.
        if (!moveFrame(loaded(), frame, moved)) gone.push({ traceId: frame.traceId, seq: frame.seq });
      }
      if (gone.length > 0) void releaseWritten(gone, new Set([segment]));
    });
    copied.then(
      () => {
        compacting = false;
        collect();
        compact(); // the next one, if any
      },
      // Not written (the disk is full): tried again at the next release, not at once.
      () => (compacting = false),
    );
  }

  /** Writes a release frame; once written, its segment covers `from`. */
  function releaseWritten(released: { traceId: string; seq: number }[], from: Set<Segment>): Promise<void> {
    return write([releaseFrame(released)], (segment) => {
      for (const covered of from) if (covered !== segment) segment.covers.add(covered);
      collect();
      compact();
    });
  }

  return {
    append(rows) {
      const log = open();
      if (rows.length === 0) return Promise.resolve();
      const parts: Uint8Array[] = [];
      const planned: Omit<Frame, 'segment' | 'offset'>[] = [];
      for (const row of rows) {
        const seq = log.nextSeq++;
        const header = spansFrameHeader(row.traceId, row.codec, row.count, seq, row.bytes);
        parts.push(header, row.bytes);
        const idLength = header.length - FRAME_HEADER_BYTES;
        planned.push({
          traceId: row.traceId,
          codec: row.codec,
          seq,
          idLength,
          length: header.length + row.bytes.length,
        });
      }
      return write(parts, (segment, offset) => {
        let at = offset;
        for (const frame of planned) {
          addFrame(loaded(), frameAt(frame, segment, at));
          at += frame.length;
        }
      });
    },

    release(traceIds) {
      const state = open();
      const released: { traceId: string; seq: number }[] = [];
      const from = new Set<Segment>();
      for (const traceId of new Set(traceIds)) {
        const frames = keepFrames(state, traceId, () => false);
        if (frames.length === 0) continue;
        let seq = 0;
        for (const frame of frames) {
          from.add(frame.segment);
          seq = Math.max(seq, frame.seq);
        }
        released.push({ traceId, seq });
      }
      if (released.length === 0) return Promise.resolve();
      const now = performance.now();
      for (const segment of from) segment.releasedAtMs = now;
      return releaseWritten(released, from);
    },

    rowsOf(traceIds) {
      const state = open();
      const wanted = new Map<string, readonly Frame[]>();
      for (const traceId of traceIds) {
        const frames = framesOf(state, traceId);
        if (frames) wanted.set(traceId, frames);
      }
      const bytes = readFrames([...wanted.values()].flat());
      const found = new Map<string, EncodedSpans[]>();
      for (const [traceId, frames] of wanted)
        found.set(
          traceId,
          frames.map((frame) => rowOf(frame, bytes.get(frame)!)),
        );
      return found;
    },

    giveBack(rows) {
      const read = new Map<string, EncodedSpans[]>();
      let unpinned = false;
      for (const [traceId, list] of rows) {
        const bytes: EncodedSpans[] = [];
        for (const row of list) {
          if (!isLocated(row)) {
            bytes.push(row);
            continue;
          }
          const segment = pinned.get(row.fd);
          if (!segment || --segment.pins > 0) continue;
          pinned.delete(row.fd);
          unpinned = true;
        }
        if (bytes.length > 0) read.set(traceId, bytes);
      }
      giveBackRead(read);
      if (unpinned) collect();
    },

    locate(traceIds) {
      const state = open();
      const found = new Map<string, LocatedSpans[]>();
      for (const traceId of traceIds) {
        const frames = framesOf(state, traceId);
        if (!frames) continue;
        found.set(
          traceId,
          frames.map((frame) => {
            frame.segment.pins++;
            pinned.set(frame.segment.fd, frame.segment);
            return locatedRow(frame);
          }),
        );
      }
      return found;
    },

    eachRow(each) {
      const frames = everyFrame(open());
      for (const frame of frames) each({ traceId: frame.traceId, ...rowOf(frame, readFrame(frame)) });
    },

    has(traceId) {
      return open().traces.has(traceId);
    },

    tidy() {
      open();
      collect();
      compact();
    },

    get bytes() {
      let total = 0;
      for (const segment of state?.segments.values() ?? []) total += segment.size;
      return total;
    },

    close() {
      clearTimeout(compactLater);
      closing ??= (async () => {
        await writes.idle();
        await sync.close();
        for (const segment of state?.segments.values() ?? []) closeSync(segment.fd);
      })();
      return closing;
    },
  };
}
