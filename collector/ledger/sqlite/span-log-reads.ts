/**
 * Reading the span log's frames (span-log.ts): frames side by side in a segment file — a request's
 * traces, decided together — are read with one positioned read, into buffers from the thread's pool that
 * the caller gives back once it has copied or decoded the rows (`giveBack`), so that reading rows back
 * under sustained ingest allocates nothing new.
 */
import { readSync } from 'node:fs';
import { threadBufferPool } from '../../model/buffer-pool.ts';
import type { EncodedSpans } from '../core/span-codec.ts';
import { LedgerStoreError } from '../errors.ts';
import { FRAME_MAGIC } from './span-log-frames.ts';
import { segmentPath, type Frame, type Segment } from './span-log-scan.ts';

/** Frames side by side are read together up to this many bytes. */
const MAX_READ_BYTES = 4 * 1024 * 1024;

export interface FrameReader {
  /** Each frame's whole bytes (header included). */
  readFrames(frames: readonly Frame[]): Map<Frame, Buffer>;
  /** Rows made of what `readFrames` read: their buffers are read into again. */
  giveBack(rows: Map<string, EncodedSpans[]>): void;
}

export function createFrameReader(
  dir: string,
  where: string,
  fail: (what: string, error: unknown) => LedgerStoreError,
): FrameReader {
  const reads = threadBufferPool();

  /** Each frame's bytes; frames side by side in a file (a request's traces) are read at once. */
  function readFrames(frames: readonly Frame[]): Map<Frame, Buffer> {
    const found = new Map<Frame, Buffer>();
    const order = [...frames].sort((a, b) => a.segment.id - b.segment.id || a.offset - b.offset);
    for (let first = 0; first < order.length; ) {
      let last = first;
      let end = order[first].offset + order[first].length;
      while (
        last + 1 < order.length &&
        order[last + 1].segment === order[first].segment &&
        order[last + 1].offset === end &&
        end - order[first].offset < MAX_READ_BYTES
      ) {
        last++;
        end += order[last].length;
      }
      const start = order[first].offset;
      const bytes = readAt(order[first].segment, start, end - start);
      for (let i = first; i <= last; i++) {
        const frame = order[i];
        const at = frame.offset - start;
        // Its CRC was checked when the log was read at start, or it was written by this process.
        if (bytes.readUInt32LE(at) !== FRAME_MAGIC) throw damaged(frame);
        found.set(frame, bytes.subarray(at, at + frame.length));
      }
      first = last + 1;
    }
    return found;
  }

  function readAt(segment: Segment, position: number, length: number): Buffer {
    const bytes = reads.take(length);
    let read = 0;
    try {
      while (read < length) {
        const got = readSync(segment.fd, bytes, read, length - read, position + read);
        if (got === 0) break;
        read += got;
      }
    } catch (error) {
      throw fail(`cannot read ${segmentPath(dir, segment.id)}`, error);
    }
    if (read < length) throw damaged({ segment, offset: position + read });
    return bytes;
  }

  const damaged = (frame: Pick<Frame, 'segment' | 'offset'>) =>
    new LedgerStoreError(
      `ledger ${where}: stored spans are damaged: span log ${segmentPath(dir, frame.segment.id)} at ${frame.offset}`,
    );

  return {
    readFrames,
    giveBack(rows) {
      const buffers = new Set<ArrayBufferLike>();
      for (const list of rows.values()) for (const row of list) buffers.add(row.bytes.buffer);
      for (const buffer of buffers) reads.give(buffer);
    },
  };
}
