/**
 * The tokens spent in a sliding window of `perMs`: what a token budget compares with its limit. A
 * pure structure, time is an argument.
 *
 * Memory is bounded whatever the traffic: spends less than a thousandth of the window apart share
 * one slot, so a window holds about a thousand slots at most. A slot leaves the window once its
 * latest spend is older than `perMs`, so a spend is counted up to a thousandth of the window too
 * long, never too short: the budget errs on the side of spending less.
 */

/** Slots a full window holds at most (about). */
export const WINDOW_SLOTS = 1_000;

export interface TokenWindow {
  readonly limit: number;
  readonly perMs: number;
  /** Adds `tokens` spent at `atMs`. */
  add(atMs: number, tokens: number): void;
  /** Tokens spent in the window that ends at `nowMs`. */
  spent(nowMs: number): number;
}

export function createTokenWindow(limit: number, perMs: number): TokenWindow {
  const slotMs = Math.max(1, Math.floor(perMs / WINDOW_SLOTS));
  /** Per slot: when its first spend was (which spends join it), its latest (when it leaves), its tokens. */
  let starts: number[] = [];
  let ends: number[] = [];
  let tokens: number[] = [];
  let head = 0;
  let sum = 0;

  function evict(nowMs: number): void {
    const from = nowMs - perMs;
    while (head < ends.length && ends[head] <= from) {
      sum -= tokens[head];
      head++;
    }
    if (head > WINDOW_SLOTS && head * 2 > ends.length) {
      starts = starts.slice(head);
      ends = ends.slice(head);
      tokens = tokens.slice(head);
      head = 0;
    }
  }

  return {
    limit,
    perMs,
    add(atMs, spent) {
      if (!(spent > 0) || !Number.isFinite(spent)) return;
      const last = ends.length - 1;
      // A spend within the last slot's span, or earlier than it (restored out of order), joins it.
      if (last >= head && atMs - starts[last] < slotMs) {
        tokens[last] += spent;
        ends[last] = Math.max(ends[last], atMs);
      } else {
        starts.push(atMs);
        ends.push(atMs);
        tokens.push(spent);
      }
      sum += spent;
    },
    spent(nowMs) {
      evict(nowMs);
      return sum;
    },
  };
}
