/**
 * Recording outcomes: each one is written to the ledger with many others in one transaction
 * (group commit), which also removes its evaluation from the queue; it is counted, and handed to
 * telemetry (`onRecorded`) once written. An outcome the ledger already had for its key is a
 * duplicate: counted, not handed on. Failed evaluations are logged, at most one line per
 * evaluator a minute. The evaluations an outcome routes (`followUps`) are queued in the same
 * transaction as the outcome, and handed to the runtime (`onQueued`).
 *
 * A write that fails (the ledger unreachable for a while, a transaction the server rolled back)
 * is tried again with the outcome already known, after 1 s and then twice as long each time up to
 * 30 s, for as long as the collector runs: the evaluation stays in the runtime meanwhile. Only
 * when the collector stops first does it run again at the next start.
 */
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { EvaluationQueue, QueuedEvaluation } from '../../ledger/evaluation-queue.ts';
import type { Logger } from '../../logger.ts';
import { isoTime, pause, type Clock } from './clock.ts';
import { abandonedRecord, createFailureLog, type RecordContext } from './evaluation-outcomes.ts';
import { createGroupCommit, MAX_WRITE_BATCH } from './group-commit.ts';

/** The wait before writing an outcome again after a failed write; it doubles up to the next. */
export const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export interface OutcomeStats {
  recorded: number;
  verdicts: number;
  passed: number;
  inconclusive: number;
  failed: number;
  /** Outcomes dropped because the ledger already had one for their key. */
  duplicates: number;
}

export interface OutcomeRecordingOptions {
  /** `recordEvaluationsWithFollowUps` is needed only with `followUps`. */
  store: Pick<EvaluationQueue, 'recordEvaluations'> & Partial<Pick<EvaluationQueue, 'recordEvaluationsWithFollowUps'>>;
  clock: Clock;
  logger: Logger;
  /** Called with each outcome once it is recorded (not for duplicates). */
  onRecorded?(record: EvaluationRecord): void;
  /** The evaluation has left the runtime: recorded, or (its write failed) it runs at the next start. */
  onSettled(evaluationId: string): void;
  /** The evaluations an outcome routes (none by default). */
  followUps?(record: EvaluationRecord, evaluation: QueuedEvaluation): QueuedEvaluation[];
  /** Routed evaluations queued with the outcomes they follow. */
  onQueued?(queued: QueuedEvaluation[]): void;
  /** The collector stopping: a failed write is not tried again (the evaluation runs at the next start). */
  signal?: AbortSignal;
}

export interface OutcomeRecording {
  /** Records an attempt's outcome (logging it when failed). Never rejects. */
  recordAttempt(record: EvaluationRecord, evaluation?: QueuedEvaluation): Promise<void>;
  /** Records as failed an evaluation whose attempts all died with their collector. Never rejects. */
  recordAbandoned(evaluation: QueuedEvaluation, context: RecordContext): Promise<void>;
  /** Resolves when no write is waiting or under way. */
  idle(): Promise<void>;
  stats(): OutcomeStats;
}

export function createOutcomeRecording(options: OutcomeRecordingOptions): OutcomeRecording {
  const { store, clock, logger } = options;
  const logFailure = createFailureLog(logger, () => clock.now());
  const stats: OutcomeStats = { recorded: 0, verdicts: 0, passed: 0, inconclusive: 0, failed: 0, duplicates: 0 };
  const outcomes = createGroupCommit<{ record: EvaluationRecord; followUps: QueuedEvaluation[] }, boolean>(
    async (items) => {
      const records = items.map((item) => item.record);
      const followUps = items.flatMap((item) => item.followUps);
      if (followUps.length === 0 || !store.recordEvaluationsWithFollowUps) {
        const written = new Set(await store.recordEvaluations(records));
        return records.map((record) => written.has(record.evaluationId));
      }
      const result = await store.recordEvaluationsWithFollowUps(records, followUps);
      if (result.queued.length > 0) options.onQueued?.(result.queued);
      const written = new Set(result.written);
      return records.map((record) => written.has(record.evaluationId));
    },
    MAX_WRITE_BATCH,
  );

  function count(record: EvaluationRecord): void {
    stats.recorded++;
    const outcome = record.outcome;
    if (outcome.type === 'verdict') {
      stats.verdicts++;
      if (outcome.evaluation.passed) stats.passed++;
    } else if (outcome.type === 'inconclusive') stats.inconclusive++;
    else stats.failed++;
  }

  async function record(record: EvaluationRecord, evaluation: QueuedEvaluation | undefined): Promise<void> {
    try {
      let written: boolean;
      try {
        let followUps: QueuedEvaluation[] = [];
        try {
          followUps = evaluation ? (options.followUps?.(record, evaluation) ?? []) : [];
        } catch (error) {
          logger.error(`evaluation ${record.evaluationId}: routing its outcome failed: ${errorText(error)}`);
        }
        written = await writeUntilStopped({ record, followUps });
      } catch (error) {
        logger.error(
          `evaluation ${record.evaluationId}: recording its outcome ` +
            `failed: ${errorText(error)} (the collector is stopping; it runs again at the next start)`,
        );
        return;
      }
      if (!written) {
        stats.duplicates++;
        return;
      }
      count(record);
      try {
        options.onRecorded?.(record);
      } catch (error) {
        logger.error(`evaluation: onRecorded failed: ${errorText(error)}`);
      }
    } finally {
      options.onSettled(record.evaluationId);
    }
  }

  /** Writes the outcome, again after each failed write until it commits or the collector stops. */
  async function writeUntilStopped(item: { record: EvaluationRecord; followUps: QueuedEvaluation[] }) {
    for (let waitMs = RETRY_FIRST_MS; ; waitMs = Math.min(RETRY_MAX_MS, waitMs * 2)) {
      try {
        return await outcomes.add(item);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (waitMs === RETRY_FIRST_MS) logRetry(item.record.evaluationId, error);
        if (!(await pause(clock, waitMs, options.signal))) throw error;
      }
    }
  }

  /** One line at most every RETRY_MAX_MS for outcome writes that failed and wait to be tried again. */
  let lastRetryLog = Number.NEGATIVE_INFINITY;
  let unloggedRetries = 0;
  function logRetry(evaluationId: string, error: unknown): void {
    unloggedRetries++;
    const now = clock.now();
    if (now - lastRetryLog < RETRY_MAX_MS) return;
    lastRetryLog = now;
    const others = unloggedRetries - 1;
    unloggedRetries = 0;
    logger.warn(
      `evaluation ${evaluationId}${others > 0 ? ` and ${others} others` : ''}: recording the outcome failed: ` +
        `${errorText(error)} (trying again, every ${RETRY_MAX_MS / 1000} s at most, until it is recorded)`,
    );
  }

  return {
    recordAttempt(attempt, evaluation) {
      if (attempt.outcome.type === 'failed') logFailure(attempt, attempt.outcome.error);
      return record(attempt, evaluation);
    },
    recordAbandoned(evaluation, context) {
      const abandoned = abandonedRecord(evaluation, isoTime(clock.now()), context);
      logger.warn(
        `evaluation ${evaluation.evaluationId} of interaction ${evaluation.interactionId}: ` +
          `${abandoned.outcome.type === 'failed' ? abandoned.outcome.error : ''}`,
      );
      return record(abandoned, evaluation);
    },
    idle: () => outcomes.idle(),
    stats: () => ({ ...stats }),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
