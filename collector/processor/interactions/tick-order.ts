/**
 * The order the interactions processor's ticks keep while they overlap: a tick decides once the
 * tick `depth` before it has finished (so at most `depth` ticks wait on the ledger: a slow ledger
 * slows ticks down), stores its records once the previous tick has begun storing its own (the
 * ledger takes writes in call order, so writes keep tick order and may overlap; nor do they wait for
 * the previous tick's releases and hand-off), and finishes after the previous tick has finished
 * (releases and records handed on in tick order).
 */
export interface TickSlot {
  /** Settles once the tick `depth` before this one has finished. */
  mayDecide: Promise<void>;
  /** Settles once the previous tick has begun storing its records (called the ledger) or given up. */
  mayStore: Promise<void>;
  /** Says this tick has called the ledger to store its records, or given up (the next may store). Safe twice. */
  stored(): void;
  /** Settles once the previous tick has finished. */
  mayFinish: Promise<void>;
}

export interface TickOrder {
  /** Runs a tick in the next slot; its promise is that tick's whole run (it must not reject). */
  run(tick: (slot: TickSlot) => Promise<void>): Promise<void>;
  /** Settles once every tick begun has finished. */
  drained(): Promise<void>;
}

export function createTickOrder(depth: number): TickOrder {
  /** The last `depth` ticks' runs, oldest first. */
  let runs: Promise<void>[] = Array.from({ length: depth }, () => Promise.resolve());
  let lastStored: Promise<void> = Promise.resolve();
  return {
    run(tick) {
      const mayStore = lastStored;
      let stored!: () => void;
      lastStored = new Promise<void>((resolve) => (stored = resolve));
      const running = tick({ mayDecide: runs[0], mayStore, stored, mayFinish: runs[runs.length - 1] });
      runs = [...runs.slice(1), running];
      return running;
    },
    drained: () => Promise.all(runs).then(() => undefined),
  };
}
