/**
 * Ingest first: evaluations share the event loop with the receiver and the interactions
 * processor, so when the loop is saturated (event-loop utilisation above HIGH_UTILISATION over a
 * window) the runtime halves how many evaluations it starts per window, and doubles it again once
 * the loop has room (below LOW_UTILISATION). Under an overload the queue grows in the ledger
 * (durably) instead of ingest slowing down; it drains when the load drops. Never below
 * MIN_PER_WINDOW, so evaluations always progress.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { systemClock, type Clock } from './clock.ts';

export const WINDOW_MS = 100;
const HIGH_UTILISATION = 0.9;
const LOW_UTILISATION = 0.7;
const MIN_PER_WINDOW = 10;

export interface LoadGovernor {
  /** Whether one more evaluation may start in this window (counts it when so). */
  tryStart(): boolean;
  /** Called when starts are possible again (the next window). */
  onWindow(listener: () => void): void;
  /** Evaluations allowed per window now (Infinity when not limited). */
  budget(): number;
  stop(): void;
}

export interface LoadGovernorOptions {
  /** The event loop's utilisation over the window that just ended, 0 to 1 (default: measured). */
  utilisation?: () => number;
  /** Times the windows (default: the system clock). */
  clock?: Clock;
}

export function createLoadGovernor(options: LoadGovernorOptions = {}): LoadGovernor {
  let budget = Number.POSITIVE_INFINITY;
  let started = 0;
  /** Whether a start was refused in this window: the runtime then waits for the next one. */
  let refused = false;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const measure = () => {
    const now = performance.eventLoopUtilization();
    const utilisation = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return utilisation;
  };
  const sample = options.utilisation ?? measure;
  const listeners: Array<() => void> = [];
  const timer = (options.clock ?? systemClock).setInterval(() => {
    const utilisation = sample();
    if (utilisation > HIGH_UTILISATION && started > 0)
      budget = Math.max(MIN_PER_WINDOW, Math.floor(Math.min(budget, started) / 2));
    else if (utilisation < LOW_UTILISATION && budget !== Number.POSITIVE_INFINITY)
      budget = budget >= 100_000 ? Number.POSITIVE_INFINITY : budget * 2;
    started = 0;
    // Whoever was refused is told the window is over, whatever the new budget: a runtime that was
    // refused starts nothing until it is told, so a missed call would stall it for good.
    if (refused) {
      refused = false;
      for (const listener of listeners) listener();
    }
  }, WINDOW_MS);
  return {
    tryStart() {
      if (started >= budget) {
        refused = true;
        return false;
      }
      started++;
      return true;
    },
    onWindow: (listener) => listeners.push(listener),
    budget: () => budget,
    stop: () => timer.cancel(),
  };
}

/** A governor that never limits (backfill, tests). */
export const UNLIMITED: LoadGovernor = {
  tryStart: () => true,
  onWindow() {},
  budget: () => Number.POSITIVE_INFINITY,
  stop() {},
};
