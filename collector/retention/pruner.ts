/**
 * The ledger pruner: the retention policy (`processors.evaluation.ledger.retention`) applied in the
 * background, one pass (prune-pass.ts) every `intervalMs`, by the collector that holds the
 * ledger's pruning lock (replicas sharing PostgreSQL take turns; one pass at a time). Built and
 * started by `collector/service.ts` when the policy prunes anything; stopped first at shutdown.
 *
 * A pass never stalls ingest: it prunes in small transactions that queue behind ingest's writes
 * like any other, and stops between two of them at shutdown. A pass that fails is logged and the
 * next one tries again. It says once (as a warning) when the ledger stays above `max_size`
 * because what is left is in use, and when an SQLite file cannot give space back.
 */
import type { Logger } from '../logger.ts';
import {
  addTally,
  emptyTally,
  type LedgerRetention,
  type OpenReviewCheck,
  PRUNED_KINDS,
  type PrunedKind,
  type PruneTally,
} from '../ledger/ledger-retention.ts';
import type { Lifecycle } from '../pipeline/consumer.ts';
import type { RetentionPolicy } from './config.ts';
import { type PassReport, runPrunePass } from './prune-pass.ts';

/** How often a pass runs: a pass with nothing to do costs two indexed reads. */
export const DEFAULT_PRUNE_INTERVAL_MS = 5_000;
/**
 * The next pass's delay once the ledger uses more than `NEAR_MAX_SIZE_RATIO` of `max_size`: under
 * sustained ingest the ledger grows by the interval's worth of data between two passes (at tens of
 * MB a second, the default interval's worth is more than `max_size`'s margin), so they follow closely.
 */
export const UNDER_PRESSURE_INTERVAL_MS = 500;
/** Passes follow closely from this share of `max_size` on, before the ledger is above it. */
export const NEAR_MAX_SIZE_RATIO = 0.5;

export interface LedgerPrunerOptions {
  store: LedgerRetention;
  policy: RetentionPolicy;
  logger: Logger;
  /** Epoch milliseconds now (tests inject one). */
  clock?: () => number;
  /** The review store's hook, once there is one: subjects under an open review are kept. */
  reviews?: OpenReviewCheck;
  intervalMs?: number;
}

export interface LedgerPruner extends Lifecycle {
  /** Runs a pass now (after the one running, if any); undefined when another process holds the lock. */
  pruneNow(): Promise<PassReport | undefined>;
  /** Rows pruned since start, by kind: the `evalon.ledger.pruned` counter. */
  pruned(): ReadonlyArray<{ kind: PrunedKind; count: number }>;
}

export function createLedgerPruner(options: LedgerPrunerOptions): LedgerPruner {
  const { store, policy, logger } = options;
  const clock = options.clock ?? Date.now;
  const intervalMs = options.intervalMs ?? DEFAULT_PRUNE_INTERVAL_MS;
  const totals: PruneTally = emptyTally();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<PassReport | undefined> = Promise.resolve(undefined);
  let stopping = false;
  let started = false;
  let overSize = false;
  let toldNoVacuum = false;

  async function pass(): Promise<PassReport | undefined> {
    const lock = await store.lockPruning();
    if (!lock) return undefined;
    try {
      const report = await runPrunePass({
        store,
        policy,
        now: clock(),
        ...(options.reviews ? { reviews: options.reviews } : {}),
        stopped: () => stopping,
        onPruned: (tally) => addTally(totals, tally),
      });
      tell(report);
      return report;
    } finally {
      await lock.release();
    }
  }

  function tell(report: PassReport): void {
    if (report.units > 0 || report.reclaimedBytes > 0) {
      logger.debug?.(
        `retention: pruned ${report.units} units (${summary(report.tally)}); ` +
          `${mib(report.reclaimedBytes)} MiB given back`,
      );
    }
    if (report.evaluationsForSize > 0)
      logger.warn(
        `retention: ${report.evaluationsForSize} kept evaluations pruned to stay under max_size ` +
          '(nothing else was left to prune; raise processors::evaluation::ledger::retention::max_size to keep them)',
      );
    if (report.overSize !== overSize) {
      overSize = report.overSize;
      if (overSize)
        logger.warn(
          `retention: the ledger uses ${mib(report.sizeAfter?.usedBytes ?? 0)} MiB, above max_size, and what is ` +
            `left is in use (${report.keptInUse} units kept: pending traces, queued evaluations, open ` +
            'conversations); it is pruned as soon as it is not',
        );
      else logger.info('retention: the ledger is under max_size again');
    }
    if (report.incrementalVacuum === false && !toldNoVacuum && report.tally.interactions.count > 0) {
      toldNoVacuum = true;
      logger.info(
        'retention: pruned space is reused by new data but not given back to the file system (the ledger was ' +
          'created without incremental vacuum; see docs/retention.md, "Giving space back")',
      );
    }
  }

  function schedule(last?: PassReport): void {
    if (stopping) return;
    const near = (policy.maxSizeBytes ?? Infinity) * NEAR_MAX_SIZE_RATIO;
    const pressed = last?.sizeBefore !== undefined && last.sizeBefore.usedBytes > near;
    timer = setTimeout(
      () => {
        running = pass().catch((error: unknown) => {
          logger.error(`retention: a prune pass failed: ${(error as Error).message ?? String(error)} (retrying)`);
          return undefined;
        });
        void running.then(schedule);
      },
      pressed ? Math.min(intervalMs, UNDER_PRESSURE_INTERVAL_MS) : intervalMs,
    );
    timer.unref();
  }

  return {
    async start() {
      if (started) return;
      started = true;
      schedule();
    },
    async shutdown() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
    pruneNow() {
      running = running.catch(() => undefined).then(pass);
      return running;
    },
    pruned() {
      return PRUNED_KINDS.map((kind) => ({ kind, count: totals[kind].count }));
    },
  };
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function summary(tally: PruneTally): string {
  return PRUNED_KINDS.filter((kind) => tally[kind].count > 0)
    .map((kind) => `${tally[kind].count} ${kind.replace('_', ' ')}`)
    .join(', ');
}
