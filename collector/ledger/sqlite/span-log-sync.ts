/**
 * When the span log's segment files reach the disk (span-log.ts). With `synchronous: 'full'` every
 * write is synced before it resolves, and a new file's folder entry when it is created. With
 * `normal` what was written is synced in the background every SPAN_LOG_SYNC_INTERVAL_MS, as the
 * ledger's checkpoints sync its WAL: a crash of the process loses nothing either way, a power loss
 * at most that interval. A segment's file stays open while a sync of it runs.
 */
import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import type { Synchronous } from './open-database.ts';
import type { Segment } from './span-log-index.ts';

/** How often `synchronous: normal` syncs what was written (the ledger's checkpoint interval). */
export const SPAN_LOG_SYNC_INTERVAL_MS = 200;

export interface SegmentSync {
  /** After a segment was written: synced now (`full`) or soon (`normal`). */
  written(segment: Segment): Promise<void>;
  /** After a segment file was created in `dir`. */
  created(dir: string): void;
  /** Whether a sync of the segment is running (its file must stay open). */
  busy(segment: Segment): boolean;
  /** The segment is deleted: nothing to sync. */
  forget(segment: Segment): void;
  /** Syncs what is left and waits for syncs running. */
  close(): Promise<void>;
}

export function createSegmentSync(synchronous: Synchronous, onSynced: () => void): SegmentSync {
  const dirty = new Set<Segment>();
  const syncing = new Map<Segment, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;

  function datasync(segment: Segment): Promise<void> {
    const synced = new Promise<void>((resolve, reject) =>
      fdatasync(segment.fd, (error) => {
        syncing.delete(segment);
        if (error) reject(error);
        else resolve();
      }),
    );
    syncing.set(segment, synced);
    return synced;
  }

  function start(): void {
    timer ??= setInterval(() => {
      for (const segment of dirty) {
        if (syncing.has(segment) || segment.deleted) continue;
        dirty.delete(segment);
        // A failed background sync leaves the data where the OS has it; the next one tries again.
        datasync(segment).then(onSynced, () => dirty.add(segment));
      }
    }, SPAN_LOG_SYNC_INTERVAL_MS);
    timer.unref();
  }

  return {
    async written(segment) {
      if (synchronous === 'full') return datasync(segment);
      dirty.add(segment);
      start();
    },
    created(dir) {
      if (synchronous !== 'full') return;
      const fd = openSync(dir, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
    busy: (segment) => syncing.has(segment),
    forget(segment) {
      dirty.delete(segment);
    },
    async close() {
      if (timer) clearInterval(timer);
      await Promise.allSettled([...syncing.values()]);
      for (const segment of dirty) if (!segment.deleted) await datasync(segment);
      dirty.clear();
    },
  };
}
