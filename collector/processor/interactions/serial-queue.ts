/**
 * Runs async jobs one at a time, in order. `size()` counts jobs waiting or running, so callers
 * can refuse work instead of queueing without bound.
 */
export interface SerialQueue {
  run<T>(job: () => Promise<T>): Promise<T>;
  size(): number;
  /** Resolves when every job queued so far has finished. */
  idle(): Promise<void>;
}

export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  let count = 0;
  return {
    run<T>(job: () => Promise<T>): Promise<T> {
      count++;
      const result = tail.then(job).finally(() => {
        count--;
      });
      tail = result.catch(() => undefined);
      return result;
    },
    size: () => count,
    idle: () => tail.then(() => undefined),
  };
}
