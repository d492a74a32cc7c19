/**
 * A clock for tests whose time moves only when the test moves it. Given to the evaluation
 * processor or runtime as their `clock`, it runs leases, grace periods and model-outage backoffs
 * on fake time, while the ledger's I/O and the test's own polling stay real. Timers fire in time
 * order as time passes them, each followed by a turn of the event loop, so the work a timer starts
 * gets going before the next one fires.
 */
import { setImmediate as turn } from 'node:timers/promises';
import type { Clock, Timer } from '../../../../../collector/processor/evaluation/clock.ts';

/** A fixed start, far from the real time, so nothing passes by reading the real clock. */
export const MANUAL_CLOCK_START = Date.parse('2031-03-01T09:00:00.000Z');
/** Real wait between steps of `advanceUntil`, so the ledger's I/O keeps up with fake time. */
const REAL_STEP_MS = 2;

interface Scheduled {
  due: number;
  /** Set for an interval. */
  every?: number;
  /** Timers due at the same time fire in the order they were set. */
  order: number;
  callback(): void;
}

export interface ManualClock extends Clock {
  /** Moves time on by `ms`, firing every timer it passes. */
  advance(ms: number): Promise<void>;
  /** Moves time to each next timer, and fires it, until `done` settles; resolves with it. */
  advanceUntil<T>(done: Promise<T>): Promise<T>;
  /** Waits (in real time) until a one-shot timer of `ms` from now is set. */
  whenTimeout(ms: number): Promise<void>;
  /** The same, then lets exactly `ms` pass. */
  passTimeout(ms: number): Promise<void>;
  /** How far ahead each pending one-shot timer is (ms). */
  timeouts(): number[];
}

export function createManualClock(startMs = MANUAL_CLOCK_START): ManualClock {
  let now = startMs;
  let order = 0;
  const timers = new Map<number, Scheduled>();

  function set(callback: () => void, ms: number, every?: number): Timer {
    const id = order++;
    timers.set(id, { due: now + Math.max(0, ms), ...(every !== undefined ? { every } : {}), order: id, callback });
    return { cancel: () => timers.delete(id) };
  }

  function earliest(until: number): [number, Scheduled] | undefined {
    let found: [number, Scheduled] | undefined;
    for (const entry of timers) {
      const [, timer] = entry;
      if (timer.due > until) continue;
      if (!found || timer.due < found[1].due || (timer.due === found[1].due && timer.order < found[1].order))
        found = entry;
    }
    return found;
  }

  async function advance(ms: number): Promise<void> {
    const until = now + ms;
    for (let next = earliest(until); next; next = earliest(until)) {
      const [id, timer] = next;
      now = timer.due;
      if (timer.every === undefined) timers.delete(id);
      else {
        timer.due += timer.every;
        timer.order = order++;
      }
      timer.callback();
      await turn();
    }
    now = until;
    await turn();
  }

  const clock: ManualClock = {
    now: () => now,
    setTimeout: (callback, ms) => set(callback, ms),
    setInterval: (callback, ms) => set(callback, Math.max(1, ms), Math.max(1, ms)),
    advance,
    async advanceUntil(done) {
      let settled = false;
      done.then(
        () => (settled = true),
        () => (settled = true),
      );
      while (!settled) {
        const next = earliest(Number.POSITIVE_INFINITY);
        if (next) await advance(next[1].due - now);
        await new Promise((resolve) => setTimeout(resolve, REAL_STEP_MS));
      }
      return done;
    },
    async whenTimeout(ms) {
      const deadline = Date.now() + 10_000;
      while (!clock.timeouts().includes(ms)) {
        if (Date.now() > deadline) throw new Error(`no timeout of ${ms} ms was set (pending: ${clock.timeouts()})`);
        await new Promise((resolve) => setTimeout(resolve, REAL_STEP_MS));
      }
    },
    async passTimeout(ms) {
      await clock.whenTimeout(ms);
      await advance(ms);
    },
    timeouts: () => [...timers.values()].filter((timer) => timer.every === undefined).map((timer) => timer.due - now),
  };
  return clock;
}
