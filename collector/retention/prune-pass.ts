/**
 * One pass of the retention policy over the ledger, as the background pruner runs it and as
 * `evalon ledger prune` does (or, with `dryRun`, counts) it:
 *
 * 1. **Age**: every unit (an interaction that is no turn, or a whole conversation) that ended
 *    before `now − max_age`, oldest first.
 * 2. **Kept evaluations**: with `keep_evaluations`, those whose subject ended before
 *    `now − keep_evaluations`, with their tombstones.
 * 3. **Size**: with `max_size`, when the ledger uses more, the oldest units go until it uses
 *    `SIZE_TARGET_RATIO` of it (a margin, so that a pass is not needed for every new interaction).
 *    When nothing prunable is left and it is still over, the oldest kept evaluations go too: the
 *    size is the hard limit (reported, `evaluationsForSize`).
 * 4. **Space**: free pages beyond a reserve for new data go back to the file system in steps
 *    (SQLite incremental vacuum).
 *
 * The store decides in its own transaction whether a unit is in use (ledger-retention.ts); this
 * pass asks the review store first (`OpenReviewCheck`). Units go to the store in small batches, so
 * ingest writes interleave with them.
 */
import type {
  LedgerRetention,
  LedgerSize,
  OpenReviewCheck,
  PrunableQuery,
  PruneTally,
  PruneUnit,
} from '../ledger/ledger-retention.ts';
import { addTally, emptyTally, tallyBytes } from '../ledger/ledger-retention.ts';
import type { RetentionPolicy } from './config.ts';

/** Units handed to the store at once (one transaction, bounded in time by the store as well). */
export const PRUNE_BATCH_UNITS = 1000;
/** Units of the first size-pruning batch, before it is known what one frees. */
export const FIRST_SIZE_BATCH_UNITS = 10;
/** Size pruning stops once the ledger uses this share of `max_size`. */
export const SIZE_TARGET_RATIO = 0.95;
/** Space given back per step (one short writer transaction each on SQLite). */
export const RECLAIM_STEP_BYTES = 4 * 1024 * 1024;
/**
 * Free space kept for new data rather than given back: under steady ingest, what one pass frees
 * the next minutes fill, and giving it back only to grow the file again costs writes. With
 * `max_size`, never more than its margin above `SIZE_TARGET_RATIO`, so that the file stays under it.
 */
export const FREE_RESERVE_BYTES = 64 * 1024 * 1024;

export interface PrunePassOptions {
  store: LedgerRetention;
  policy: RetentionPolicy;
  /** Epoch milliseconds: the time the pass prunes at. */
  now: number;
  reviews?: OpenReviewCheck;
  /** Count what would go; remove nothing. */
  dryRun?: boolean;
  batchUnits?: number;
  /** Asked between batches: true stops the pass (shutdown). */
  stopped?: () => boolean;
  /** Each batch's tally once the store pruned it (the pruner's counters). */
  onPruned?: (tally: PruneTally) => void;
  /** Free space kept rather than given back (default `FREE_RESERVE_BYTES`, within max_size's margin). */
  keepFreeBytes?: number;
}

export interface PassReport {
  /** Removed (in a dry run: would be), by kind. */
  tally: PruneTally;
  /** Units pruned. */
  units: number;
  /** Units found in use and kept. */
  keptInUse: number;
  /** Units kept because a human review of them is open. */
  keptForReview: number;
  /** Kept evaluations removed to bring the ledger under `max_size` (nothing else was left). */
  evaluationsForSize: number;
  /** The size before the pass, and after it (estimated from what it counted, in a dry run). */
  sizeBefore?: LedgerSize;
  sizeAfter?: LedgerSize;
  /** Still above `max_size` after the pass: what is left is in use. */
  overSize: boolean;
  /** Bytes given back to the file system. */
  reclaimedBytes: number;
  /** False when the store cannot give space back (see `LedgerRetention.reclaimSpace`). */
  incrementalVacuum?: boolean;
}

const unitKey = (unit: PruneUnit) =>
  unit.kind === 'interaction' ? `i:${unit.interactionId}` : `c:${unit.conversationId}\u0000${unit.agentId}`;

export async function runPrunePass(options: PrunePassOptions): Promise<PassReport> {
  const { store, policy, now, reviews } = options;
  const dryRun = options.dryRun === true;
  const batch = options.batchUnits ?? PRUNE_BATCH_UNITS;
  const stopped = options.stopped ?? (() => false);
  const keepEvaluations = policy.keepEvaluationsMs !== undefined;
  const at = new Date(now).toISOString();
  const report: PassReport = {
    tally: emptyTally(),
    units: 0,
    keptInUse: 0,
    keptForReview: 0,
    evaluationsForSize: 0,
    overSize: false,
    reclaimedBytes: 0,
  };
  /** Units a dry run counted already (they are still there for the next step to find). */
  const counted = new Set<string>();

  const take = (tally: PruneTally) => {
    addTally(report.tally, tally);
    if (!dryRun) options.onPruned?.(tally);
  };

  async function underReview(unit: PruneUnit): Promise<boolean> {
    if (!reviews) return false;
    if (unit.kind === 'interaction')
      return reviews.isUnderOpenReview({ kind: 'interaction', interactionId: unit.interactionId });
    if (await reviews.isUnderOpenReview({ kind: 'conversation', ...conversationOf(unit) })) return true;
    for (const interactionId of unit.interactionIds)
      if (await reviews.isUnderOpenReview({ kind: 'interaction', interactionId })) return true;
    return false;
  }

  /**
   * Prunes units of `query`, oldest first, while `wanted()`, `limit()` at a time; `afterBatch` sees
   * each batch's tally.
   */
  async function pruneOldest(
    query: Omit<PrunableQuery, 'limit' | 'cursor'>,
    wanted: () => boolean,
    afterBatch: (tally: PruneTally, units: number) => Promise<void> = async () => {},
    limit: () => number = () => batch,
  ): Promise<void> {
    let cursor: string | undefined;
    while (wanted() && !stopped()) {
      const page = await store.findPrunable({ ...query, limit: limit(), ...(cursor ? { cursor } : {}) });
      let pending: PruneUnit[] = [];
      for (const unit of page.units) {
        if (counted.has(unitKey(unit))) continue;
        if (await underReview(unit)) report.keptForReview++;
        else pending.push(unit);
      }
      while (pending.length > 0 && wanted() && !stopped()) {
        const result = await store.pruneUnits(pending, { at, keepEvaluations, dryRun });
        take(result.tally);
        report.units += result.pruned.length;
        report.keptInUse += result.kept.length;
        if (dryRun) for (const unit of result.pruned) counted.add(unitKey(unit));
        pending = result.deferred;
        await afterBatch(result.tally, result.pruned.length);
      }
      if (!page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  /** Kept evaluations (and tombstones) of subjects that ended before `before`, or the oldest. */
  async function pruneKeptEvaluations(
    before: string | undefined,
    wanted: () => boolean,
    afterBatch: (tally: PruneTally) => Promise<void> = async () => {},
  ): Promise<number> {
    let removed = 0;
    while (wanted() && !stopped()) {
      const result = await store.pruneEvaluations({ ...(before ? { before } : {}), limit: batch, dryRun });
      take(result.tally);
      removed += result.tally.evaluations.count;
      await afterBatch(result.tally);
      // A dry run finds the same subjects again: one batch is all it can count.
      if (result.subjects < batch || dryRun) break;
    }
    return removed;
  }

  if (policy.maxAgeMs !== undefined) {
    await pruneOldest({ before: new Date(now - policy.maxAgeMs).toISOString() }, () => true);
  }
  if (policy.keepEvaluationsMs !== undefined) {
    await pruneKeptEvaluations(new Date(now - policy.keepEvaluationsMs).toISOString(), () => true);
  }
  if (policy.maxSizeBytes !== undefined) {
    const maxSize = policy.maxSizeBytes;
    const target = maxSize * SIZE_TARGET_RATIO;
    const before = await store.measureLedgerSize();
    report.sizeBefore = before;
    // A dry run removed nothing: what it counted so far comes off the measured size.
    let used = before.usedBytes - (dryRun ? tallyBytes(report.tally) : 0);
    // What a unit frees, as measured so far: the next batch is about what is still to free.
    let freed = 0;
    let units = 0;
    const remeasure = async (tally: PruneTally, pruned = 0) => {
      const was = used;
      used = dryRun ? used - tallyBytes(tally) : (await store.measureLedgerSize()).usedBytes;
      freed += Math.max(0, was - used);
      units += pruned;
    };
    const sized = () =>
      units === 0
        ? Math.min(batch, FIRST_SIZE_BATCH_UNITS)
        : Math.max(1, Math.min(batch, Math.ceil((used - target) / Math.max(1, freed / units))));
    if (used > maxSize) {
      await pruneOldest({}, () => used > target, remeasure, sized);
      if (used > target && keepEvaluations) {
        report.evaluationsForSize = await pruneKeptEvaluations(undefined, () => used > target, remeasure);
      }
    }
    report.overSize = used > maxSize;
    report.sizeAfter = dryRun
      ? { usedBytes: Math.max(0, used), freeBytes: before.freeBytes + (before.usedBytes - used) }
      : await store.measureLedgerSize();
  }
  const margin = policy.maxSizeBytes !== undefined ? policy.maxSizeBytes * (1 - SIZE_TARGET_RATIO) : Infinity;
  const keepFreeBytes = options.keepFreeBytes ?? Math.min(FREE_RESERVE_BYTES, margin);
  if (!dryRun && !stopped()) await reclaim(store, report, keepFreeBytes, stopped);
  return report;
}

async function reclaim(
  store: LedgerRetention,
  report: PassReport,
  keepFreeBytes: number,
  stopped: () => boolean,
): Promise<void> {
  for (;;) {
    const step = await store.reclaimSpace({ maxBytes: RECLAIM_STEP_BYTES, keepFreeBytes });
    report.incrementalVacuum = step.incremental;
    report.reclaimedBytes += step.bytes;
    if (step.bytes < RECLAIM_STEP_BYTES || stopped()) return;
  }
}

function conversationOf(unit: Extract<PruneUnit, { kind: 'conversation' }>) {
  return { conversationId: unit.conversationId, agentId: unit.agentId };
}
