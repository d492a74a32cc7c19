/**
 * The verdict recorder: for every recorded evaluation outcome, the `gen_ai.evaluation.result` log
 * event, the `evaluate <evaluator-id>` span and the verdict metrics. It is the evaluation
 * processor's `next`; it never throws and never waits.
 *
 * The evaluated span's ids are the interaction id's two halves, so events and spans need nothing
 * else (a conversation's verdict goes to its revision's last interaction). The lag metric needs the
 * interaction's end: given with the record, remembered from the interactions the interactions
 * processor hands on (recent interactions), or read from the ledger. A conversation's lag counts
 * from its evaluation's trigger, the moment it was known over: from its last interaction's end it
 * would count the idle window too.
 */
import type { EvaluationRecord } from '../../src/model/records.ts';
import type { Logger } from '../logger.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import type { CollectorMetrics } from './collector-metrics.ts';
import type { EvaluationSpans } from './otlp/evaluation-spans.ts';
import type { VerdictEvents } from './otlp/verdict-events.ts';
import { evaluatedSpanOf, verdictAttributes } from './verdict-attributes.ts';

/** Recent interactions whose end time is kept so the lag of their evaluations needs no ledger read. */
export const RECENT_INTERACTIONS = 10_000;
/** Ledger reads for lag at once; beyond this an outcome's lag is not recorded (and counted). */
export const MAX_PENDING_LOOKUPS = 1_000;

export interface VerdictRecorder {
  /** Emits an outcome's event, span and metrics. `interaction`, when at hand, saves a ledger read. */
  record(
    record: EvaluationRecord,
    interaction?: Pick<InteractionRecord, 'interactionId' | 'traceId' | 'spanId' | 'endTime'>,
  ): void;
  /** Counts an evaluation not started because its token budget was spent (`evalon.evaluations.skipped`). */
  skipped(skip: { evaluatorId: string; agentId: string; reason: string }): void;
  /** Remembers when recent interactions ended (for lag). */
  rememberInteractions(records: readonly Pick<InteractionRecord, 'interactionId' | 'endTime'>[]): void;
  /** Resolves when every pending ledger read has been answered. */
  settled(): Promise<void>;
  readonly stats: { recorded: number; lagUnknown: number };
}

export interface VerdictRecorderOptions {
  events?: VerdictEvents;
  spans?: EvaluationSpans;
  metrics: CollectorMetrics;
  /** False when no metrics pipeline collects the lag: then the ledger is never read for it. */
  measureLag?: boolean;
  /** Reads an interaction from the ledger (for the lag of outcomes of older interactions). */
  getInteraction?(interactionId: string): Promise<Pick<InteractionRecord, 'endTime'> | undefined>;
  logger: Logger;
}

export function createVerdictRecorder(options: VerdictRecorderOptions): VerdictRecorder {
  const { events, spans, metrics, logger } = options;
  const measureLag = options.measureLag ?? true;
  const endTimes = new Map<string, number>();
  const pending = new Set<Promise<void>>();
  const stats = { recorded: 0, lagUnknown: 0 };
  let warnedUnparsable = false;

  function remember(interactionId: string, endTime: string): void {
    const end = Date.parse(endTime);
    if (!Number.isFinite(end)) return;
    endTimes.delete(interactionId);
    endTimes.set(interactionId, end);
    // A Map iterates in insertion order: the first key is the oldest.
    if (endTimes.size > RECENT_INTERACTIONS) endTimes.delete(endTimes.keys().next().value!);
  }

  function recordLag(record: EvaluationRecord, end: number): void {
    metrics.recordLag(record, (Date.parse(record.completedAt) - end) / 1000);
  }

  function lookUpLag(record: EvaluationRecord): void {
    const getInteraction = options.getInteraction;
    if (!getInteraction || pending.size >= MAX_PENDING_LOOKUPS) {
      stats.lagUnknown++;
      return;
    }
    const lookup = getInteraction(record.interactionId)
      .then((interaction) => {
        const end = interaction ? Date.parse(interaction.endTime) : NaN;
        if (Number.isFinite(end)) recordLag(record, end);
        else stats.lagUnknown++;
      })
      .catch((error: unknown) => {
        stats.lagUnknown++;
        logger.warn(
          `exporters: reading interaction ${record.interactionId} for the verdict lag failed: ` +
            `${error instanceof Error ? error.message : String(error)}`,
        );
      })
      .finally(() => pending.delete(lookup));
    pending.add(lookup);
  }

  return {
    stats,
    record(record, interaction) {
      try {
        stats.recorded++;
        const evaluated = interaction
          ? { traceId: interaction.traceId, spanId: interaction.spanId }
          : evaluatedSpanOf(record.interactionId);
        if (evaluated) {
          const attributes = verdictAttributes(record);
          events?.emit(record, attributes, evaluated);
          spans?.emit(record, attributes, evaluated);
        } else if (!warnedUnparsable) {
          warnedUnparsable = true;
          logger.warn(
            `exporters: interaction id ${record.interactionId} is not ` +
              '<traceId>-<spanId>; its verdict event and span are not emitted',
          );
        }
        metrics.recordEvaluation(record);
        if (!measureLag) return;
        if (record.subject?.kind === 'conversation') {
          recordLag(record, Date.parse(record.triggeredAt));
          return;
        }
        const end = interaction ? Date.parse(interaction.endTime) : endTimes.get(record.interactionId);
        if (end !== undefined && Number.isFinite(end)) recordLag(record, end);
        else lookUpLag(record);
      } catch (error) {
        // Telemetry must never break the evaluation runtime that calls this.
        logger.error(
          `exporters: emitting the verdict of evaluation ${record.evaluationId} failed: ` +
            `${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
    skipped(skip) {
      try {
        metrics.recordSkipped(skip);
      } catch (error) {
        logger.error(
          `exporters: counting a skipped evaluation failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
    rememberInteractions(records) {
      if (!measureLag) return;
      for (const record of records) remember(record.interactionId, record.endTime);
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
