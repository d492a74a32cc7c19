/**
 * Group commit: items added while a write is in flight go together in the next write, so a busy
 * runtime makes one ledger transaction per batch instead of one per evaluation, and an idle one
 * writes at once (no timer, no added latency).
 */

/** Rows per ledger transaction of attempt counts, progress saves or outcomes. */
export const MAX_WRITE_BATCH = 2_000;

export interface GroupCommit<T, R> {
  /** Resolves with this item's answer once the write that carried it has committed. */
  add(item: T): Promise<R>;
  /** Resolves when nothing is waiting or being written. */
  idle(): Promise<void>;
  pending(): number;
}

/** `write` answers one value per item, in order. */
export function createGroupCommit<T, R>(write: (items: T[]) => Promise<R[]>, maxBatch: number): GroupCommit<T, R> {
  let waiting: Array<{ item: T; resolve(value: R): void; reject(error: unknown): void }> = [];
  let writing: Promise<void> | undefined;

  function flush(): void {
    if (writing || waiting.length === 0) return;
    const batch = waiting.slice(0, maxBatch);
    waiting = waiting.slice(batch.length);
    writing = write(batch.map((entry) => entry.item))
      .then(
        (answers) => {
          for (const [i, entry] of batch.entries()) entry.resolve(answers[i] as R);
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        writing = undefined;
        flush();
      });
  }

  return {
    add(item) {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        flush();
      });
    },
    async idle() {
      while (writing) await writing;
    },
    pending: () => waiting.length + (writing ? 1 : 0),
  };
}
