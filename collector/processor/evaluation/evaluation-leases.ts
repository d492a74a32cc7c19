/**
 * The evaluation runtime's side of leases, when replicas share the ledger's queue (PostgreSQL):
 * which seqs this runtime holds, renewing them every third of the lease duration, rescanning the
 * queue every lease duration for work no live replica holds, and releasing what is left at
 * shutdown so another replica starts it at once. Without the `lease` option it does nothing (one
 * collector on its ledger). The stores' side is `startEvaluations` / `renewEvaluationLeases` /
 * `releaseEvaluationLeases` in the store contract.
 */
import type { EvaluationLease, EvaluationQueue } from '../../ledger/evaluation-queue.ts';
import type { Logger } from '../../logger.ts';
import { isoTime, type Clock, type Timer } from './clock.ts';

export interface LeaseOption {
  /** Unique to this collector process. */
  owner: string;
  durationMs: number;
  /** How often the queue is read again for claimable work (default `durationMs`). */
  rescanMs?: number;
}

export interface EvaluationLeases {
  /** The lease a start takes now, if leases are on. */
  forStart(): EvaluationLease | undefined;
  /** The filter for reading claimable queued evaluations now, if leases are on. */
  claimableNow(): { owner: string; at: string } | undefined;
  /** A start took the lease on this evaluation. */
  held(evaluationId: string, seq: number): void;
  /** Its outcome is recorded: nothing to renew or release. */
  done(evaluationId: string): void;
  /** Starts renewing, and calling `rescan` every rescan period. */
  start(rescan: () => void): void;
  /** Stops the timers, waits for a renewal in flight, and releases every lease still held. */
  stop(): Promise<void>;
  /** Leases lost to another replica while held here (this replica stalled longer than a lease). */
  stats(): { leasesLost: number };
}

export function createEvaluationLeases(options: {
  store: EvaluationQueue;
  lease?: LeaseOption;
  clock: Clock;
  logger: Logger;
}): EvaluationLeases {
  const { store, lease, clock, logger } = options;
  /** Seqs leased by this runtime and not yet recorded, by evaluation id. */
  const leased = new Map<string, number>();
  const timers: Timer[] = [];
  let leasesLost = 0;
  let renewing: Promise<void> | undefined;

  /** Extends the leases of everything held; a lease lost meanwhile is let go. */
  function renew(): void {
    if (!lease || renewing || leased.size === 0) return;
    const bySeq = new Map([...leased].map(([evaluationId, seq]) => [seq, evaluationId]));
    renewing = store
      .renewEvaluationLeases({ owner: lease.owner, until: isoTime(clock.now() + lease.durationMs) }, [...bySeq.keys()])
      .then((kept) => {
        const keptSet = new Set(kept);
        let lost = 0;
        for (const [seq, evaluationId] of bySeq) {
          // Recorded since the renewal began: not lost, just gone.
          if (keptSet.has(seq) || !leased.has(evaluationId)) continue;
          leased.delete(evaluationId);
          lost++;
        }
        if (lost > 0) {
          leasesLost += lost;
          logger.warn(
            `evaluation: ${lost} evaluation lease(s) expired before ` +
              'they were renewed and another replica may run them ' +
              `(this collector stalled for more than ${lease.durationMs} ms); each keeps one recorded outcome`,
          );
        }
      })
      .catch((error: unknown) =>
        logger.warn(`evaluation: renewing ${bySeq.size} evaluation lease(s) failed: ${errorText(error)} (retrying)`),
      )
      .finally(() => (renewing = undefined));
  }

  return {
    forStart: () => (lease ? { owner: lease.owner, until: isoTime(clock.now() + lease.durationMs) } : undefined),
    claimableNow: () => (lease ? { owner: lease.owner, at: isoTime(clock.now()) } : undefined),
    held(evaluationId, seq) {
      if (lease) leased.set(evaluationId, seq);
    },
    done(evaluationId) {
      leased.delete(evaluationId);
    },
    start(rescan) {
      if (!lease) return;
      timers.push(clock.setInterval(renew, Math.max(1, Math.floor(lease.durationMs / 3))));
      timers.push(clock.setInterval(rescan, Math.max(1, lease.rescanMs ?? lease.durationMs)));
    },
    async stop() {
      for (const timer of timers.splice(0)) timer.cancel();
      await renewing;
      if (!lease || leased.size === 0) return;
      // What this runtime started and did not finish is free for another replica at once.
      const seqs = [...leased.values()];
      leased.clear();
      await store.releaseEvaluationLeases(lease.owner, seqs).catch((error: unknown) => {
        logger.warn(
          `evaluation: releasing ${seqs.length} evaluation lease(s) failed: ${errorText(error)} (they expire within ` +
            `${lease.durationMs} ms)`,
        );
      });
    },
    stats: () => ({ leasesLost }),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
