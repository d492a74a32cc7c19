/**
 * Reading the span log's frames (span-log.ts) on the thread that holds the log: frames side by side
 * in a segment file — a request's traces, decided together — are read with one positioned read, into
 * a buffer from the thread's pool that the caller gives back once it has copied or decoded the rows
 * (`giveBack`), so that reading rows back under sustained ingest allocates nothing new. The reads
 * themselves are `readStoredSpans`, which a reader on another thread uses for rows located for it.
 */
import { threadBufferPool } from '../../model/buffer-pool.ts';
import { readStoredSpans, type EncodedSpans } from '../core/span-codec.ts';
import { FRAME_MAGIC } from './span-log-frames.ts';
import type { Frame } from './span-log-index.ts';

export interface FrameReader {
  /** Each frame's whole bytes (header included). */
  readFrames(frames: readonly Frame[]): Map<Frame, Buffer>;
  /** Rows made of what `readFrames` read: their buffers are read into again. */
  giveBack(rows: Map<string, EncodedSpans[]>): void;
}

export function createFrameReader(where: string): FrameReader {
  const reads = threadBufferPool();
  return {
    readFrames(frames) {
      // Its CRC was checked when the log was read at start, or it was written by this process: the
      // read checks that each frame starts where it should.
      const read = readStoredSpans(
        frames.map((frame) => ({
          codec: frame.codec,
          fd: frame.segment.fd,
          position: frame.offset,
          length: frame.length,
          skip: 0,
          magic: FRAME_MAGIC,
          file: frame.segment.path,
        })),
        where,
      );
      return new Map(frames.map((frame, i) => [frame, read.rows[i].bytes as Buffer]));
    },
    giveBack(rows) {
      const buffers = new Set<ArrayBufferLike>();
      for (const list of rows.values()) for (const row of list) buffers.add(row.bytes.buffer);
      for (const buffer of buffers) reads.give(buffer);
    },
  };
}
