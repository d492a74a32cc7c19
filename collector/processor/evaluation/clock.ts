/**
 * Time as the evaluation processor sees it: the time of day and timers, behind one small
 * interface. The processor creates it once (the system clock unless one is given) and hands it to
 * every part that reads the time or waits — the runtime, leases, model-outage waits, durable
 * execution, the load governor, shutdown — so tests run leases, grace periods and backoffs on
 * fake time instead of sleeping.
 */

/** A scheduled callback; `cancel` is safe twice and after it ran. */
export interface Timer {
  cancel(): void;
}

export interface TimerOptions {
  /**
   * A background timer does not keep the process alive (periodic chores, retries). One that
   * something awaits (a backoff, a grace period) must not be in the background.
   */
  background?: boolean;
}

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
  /** Calls `callback` once, `ms` from now. */
  setTimeout(callback: () => void, ms: number, options?: TimerOptions): Timer;
  /** Calls `callback` every `ms` until cancelled; always in the background. */
  setInterval(callback: () => void, ms: number): Timer;
}

/**
 * The real clock. Node's timer functions are looked up at each call, not captured at import, so
 * a test that fakes the global timers fakes these too.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms, options = {}) {
    const handle = globalThis.setTimeout(callback, ms);
    if (options.background) handle.unref();
    return { cancel: () => globalThis.clearTimeout(handle) };
  },
  setInterval(callback, ms) {
    const handle = globalThis.setInterval(callback, ms);
    handle.unref();
    return { cancel: () => globalThis.clearInterval(handle) };
  },
};

/**
 * A clock from the `clock` option: a `Clock`, or (as before there were timers to inject) just
 * the time of day as a function, which then runs on real timers.
 */
export function clockFrom(option: Clock | (() => number) | undefined): Clock {
  if (option === undefined) return systemClock;
  if (typeof option === 'function') return { ...systemClock, now: option };
  return option;
}

/** Resolves `ms` from now on `clock` (the wait keeps the process alive). */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

/** Resolves true `ms` from now on `clock`, or false as soon as `signal` aborts. */
export function pause(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      timer.cancel();
      resolve(false);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
