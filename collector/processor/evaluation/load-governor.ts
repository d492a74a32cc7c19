/**
 * Ingest first: evaluations share the event loop with the receiver and the interactions
 * processor, so when the loop is saturated (event-loop utilisation above HIGH_UTILISATION over a
 * window) the runtime halves how many evaluations it starts per window, and doubles it again once
 * the loop has room (below LOW_UTILISATION). Under an overload the queue grows in the ledger
 * (durably) instead of ingest slowing down; it drains when the load drops. Never below
 * MIN_PER_WINDOW, so evaluations always progress.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

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

export function createLoadGovernor(): LoadGovernor {
  let budget = Number.POSITIVE_INFINITY;
  let started = 0;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const listeners: Array<() => void> = [];
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const utilisation = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (utilisation > HIGH_UTILISATION && started > 0) budget = Math.max(MIN_PER_WINDOW, Math.floor(Math.min(budget, started) / 2));
    else if (utilisation < LOW_UTILISATION && budget !== Number.POSITIVE_INFINITY) budget = budget >= 100_000 ? Number.POSITIVE_INFINITY : budget * 2;
    const blocked = started >= budget;
    started = 0;
    if (blocked) for (const listener of listeners) listener();
  }, WINDOW_MS);
  timer.unref();
  return {
    tryStart() {
      if (started >= budget) return false;
      started++;
      return true;
    },
    onWindow: (listener) => listeners.push(listener),
    budget: () => budget,
    stop: () => clearInterval(timer),
  };
}

/** A governor that never limits (backfill, tests). */
export const UNLIMITED: LoadGovernor = { tryStart: () => true, onWindow() {}, budget: () => Number.POSITIVE_INFINITY, stop() {} };
