/**
 * The runtime's side of token budgets: before an evaluation is claimed, `admit` asks the budgets
 * (evaluation-budgets.ts) whether it may start. One that may not is dropped from the ledger's queue
 * (many drops share a transaction), without an outcome, and counted as skipped: the queue stays
 * bounded however long a budget stays spent, and `evalon backfill` finds the interaction not
 * evaluated by the entry's version. A drop the ledger refuses (the evaluation started elsewhere in
 * the meantime) is left to whoever holds it. At start, the budgets' windows are rebuilt from the
 * outcomes the ledger recorded in them.
 */
import type { EvaluationQueue, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { RecordedEvaluations } from '../../ledger/recorded-evaluations.ts';
import { isoTime, type Clock } from './clock.ts';
import type { EvaluationBudgets, SpentBudget } from './evaluation-budgets.ts';
import { createGroupCommit, MAX_WRITE_BATCH } from './group-commit.ts';

/** Why an evaluation was skipped: the `reason` of `evalon.evaluations.skipped`. */
export type SkipReason = 'budget';

export interface SkippedEvaluation {
  evaluatorId: string;
  agentId: string;
  reason: SkipReason;
}

export interface BudgetSkips {
  /** Whether `evaluation` may be claimed; when not, it is dropped (and released) in the background. */
  admit(evaluation: QueuedEvaluation): boolean;
  /** Rebuilds the budgets' windows from the ledger. */
  restore(): Promise<void>;
  /** Evaluations skipped so far. */
  count(): number;
  idle(): Promise<void>;
}

export function createBudgetSkips(options: {
  store: Pick<EvaluationQueue, 'dropEvaluations'> & Pick<RecordedEvaluations, 'loadRecentEvaluations'>;
  budgets: EvaluationBudgets;
  clock: Clock;
  /** This runtime's lease owner on a shared ledger. */
  owner?: string;
  onSkipped?(skip: SkippedEvaluation): void;
  /** The evaluation has left the runtime. */
  release(evaluationId: string): void;
  /** Work the runtime waits for before it is idle. */
  track(work: Promise<unknown>): void;
}): BudgetSkips {
  const { store, budgets, clock } = options;
  let skipped = 0;
  const drops = createGroupCommit<number, boolean>(async (seqs) => {
    const at = isoTime(clock.now());
    const dropped = new Set(
      await store.dropEvaluations(seqs, { at, ...(options.owner ? { owner: options.owner } : {}) }),
    );
    return seqs.map((seq) => dropped.has(seq));
  }, MAX_WRITE_BATCH);

  function drop(evaluation: QueuedEvaluation, budget: SpentBudget): Promise<void> {
    return drops.add(evaluation.seq ?? 0).then(
      (dropped) => {
        options.release(evaluation.evaluationId);
        if (!dropped) return;
        skipped++;
        budgets.skipped(evaluation, budget);
        try {
          options.onSkipped?.({ evaluatorId: evaluation.evaluatorId, agentId: evaluation.agentId, reason: 'budget' });
        } catch {
          // Telemetry never changes what the runtime does.
        }
      },
      // The ledger refused the drop: the evaluation stays queued and is checked again at the next read.
      () => options.release(evaluation.evaluationId),
    );
  }

  return {
    admit(evaluation) {
      // An evaluation already started (an attempt counted, durable progress) finishes; a backfill's runs.
      if (evaluation.source !== 'interaction' || evaluation.attempts > 0 || evaluation.progress) return true;
      const budget = budgets.check(evaluation);
      if (!budget) return true;
      options.track(drop(evaluation, budget));
      return false;
    },
    async restore() {
      const { evaluatorIds, since } = budgets.restoreQuery();
      budgets.restore(await store.loadRecentEvaluations({ evaluatorIds, since: isoTime(since) }));
    },
    count: () => skipped,
    idle: () => drops.idle(),
  };
}
