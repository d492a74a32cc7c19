/**
 * Bounds the request bytes the receiver holds at once (bodies being read, decoded or waiting for
 * `next.consume`), so a burst of senders meets 429 instead of an unbounded queue. A request
 * reserves its declared Content-Length up front and grows its share as decompressed bytes arrive.
 * A request alone is always let through: its own size is already capped by the body limit.
 */

export interface InFlightReservation {
  /** Grows this request's share to `totalBytes`; false when that would exceed the budget. */
  grow(totalBytes: number): boolean;
  /** Returns this request's share. Safe twice. */
  release(): void;
}

export interface InFlightBudget {
  /** Undefined when the budget is already spent (answer 429 before reading the body). */
  admit(declaredBytes: number): InFlightReservation | undefined;
  /** Bytes currently held, for tests and metrics. */
  heldBytes(): number;
}

export function createInFlightBudget(maxBytes: number): InFlightBudget {
  let used = 0;
  return {
    admit(declaredBytes) {
      if (used > 0 && used + declaredBytes > maxBytes) return undefined;
      used += declaredBytes;
      let held = declaredBytes;
      return {
        grow(totalBytes) {
          if (totalBytes <= held) return true;
          const extra = totalBytes - held;
          const others = used - held;
          if (others > 0 && used + extra > maxBytes) return false;
          used += extra;
          held = totalBytes;
          return true;
        },
        release() {
          used -= held;
          held = 0;
        },
      };
    },
    heldBytes: () => used,
  };
}
