/**
 * The span log's writes (span-log.ts), group-committed: while one write is in flight the next
 * ones wait, and then go together in one `writev` to the end of the segment being written to. A
 * write resolves once it is in the file (and synced, when the log syncs every write).
 */
import { writev } from 'node:fs';
import type { Segment } from './span-log-index.ts';

export interface SegmentWrites {
  /** Appends `parts`; `written` learns where their first byte is, before the write resolves. */
  write(parts: Uint8Array[], written: (segment: Segment, offset: number) => void): Promise<void>;
  /** Resolves once nothing is queued or being written. */
  idle(): Promise<void>;
}

interface Write {
  parts: Uint8Array[];
  bytes: number;
  written(segment: Segment, offset: number): void;
  resolve(): void;
  reject(error: Error): void;
}

export function createSegmentWrites(options: {
  /** The segment a write of `bytes` goes to (a new one past the segment size). */
  headFor(bytes: number): Segment;
  /** After a write is in its file, before it resolves. */
  written(segment: Segment): Promise<void>;
  /** A write to `segment` failed, perhaps half done: later writes must go to another one. */
  torn(segment: Segment): void;
  fail(what: string, error: unknown): Error;
}): SegmentWrites {
  let queue: Write[] = [];
  let flushing: Promise<void> | undefined;

  /** Writes what is queued, all of it in one write, until nothing is (then `flushing` is cleared). */
  async function flush(): Promise<void> {
    // Never done before `flushing` is set (writes queued meanwhile join this flush).
    await null;
    for (;;) {
      if (queue.length === 0) {
        flushing = undefined;
        return;
      }
      const batch = queue;
      queue = [];
      let total = 0;
      for (const entry of batch) total += entry.bytes;
      let segment: Segment;
      try {
        segment = options.headFor(total);
      } catch (error) {
        for (const entry of batch) entry.reject(error as Error);
        continue;
      }
      const offset = segment.size;
      segment.size += total;
      try {
        await writeAll(
          segment,
          batch.flatMap((entry) => entry.parts),
          offset,
        );
        await options.written(segment);
      } catch (error) {
        // What was written of this batch is a torn tail: later writes go to a new segment.
        segment.size = offset;
        options.torn(segment);
        const failure = options.fail(`cannot write ${segment.path}`, error);
        for (const entry of batch) entry.reject(failure);
        continue;
      }
      let at = offset;
      for (const entry of batch) {
        entry.written(segment, at);
        at += entry.bytes;
        entry.resolve();
      }
    }
  }

  return {
    write(parts, written) {
      let bytes = 0;
      for (const part of parts) bytes += part.byteLength;
      return new Promise<void>((resolve, reject) => {
        queue.push({ parts, bytes, written, resolve, reject });
        flushing ??= flush();
      });
    },
    async idle() {
      while (flushing) await flushing;
    },
  };
}

function writeAll(segment: Segment, parts: Uint8Array[], offset: number): Promise<void> {
  return new Promise((resolve, reject) =>
    writev(segment.fd, parts, offset, (error) => (error ? reject(error) : resolve())),
  );
}
