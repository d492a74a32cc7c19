/**
 * The `evaluation` processor: the interactions handed to it trigger evaluations, queued in the
 * ledger and run in the background; each recorded outcome goes to `next` (the exporters).
 */
import { randomBytes } from 'node:crypto';
import type { TracerProvider } from '@opentelemetry/api';
import { hostname } from 'node:os';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import type { ComponentFactory, ComponentSettings } from '../../component.ts';
import type { LedgerStore } from '../../ledger/store.ts';
import { evaluationProcessorSchema, type EvaluationProcessorConfig } from './config.ts';
import { createEvaluationProcessor, type EvaluationProcessor } from './evaluation-processor.ts';
import type { EvaluatorRegistry } from './evaluator-registry.ts';
import type { SkippedEvaluation } from './budget-skips.ts';

export interface EvaluationProcessorSettings extends ComponentSettings {
  store: LedgerStore;
  /** The evaluators this collector can run (built-ins and those of `modules`), loaded before anything starts. */
  registry: EvaluatorRegistry;
  clock?: () => number;
  /** This process's name on the leases of a shared ledger (default: host, pid and a random suffix). */
  leaseOwner?: string;
  /** Where LLM judges' model calls become spans, under their evaluation's span (the exporters' provider). */
  tracerProvider?: TracerProvider;
}

/** Where recorded outcomes go; it must neither throw nor wait. */
export interface EvaluationRecordConsumer {
  record(record: EvaluationRecord): void;
  /** An evaluation not started because its token budget was spent (counted, never recorded). */
  skipped?(skip: SkippedEvaluation): void;
}

export const evaluationProcessorFactory = {
  kind: 'processor',
  type: 'evaluation',
  schema: evaluationProcessorSchema,
  configuredByDefault: true,
  create(
    settings: EvaluationProcessorSettings,
    config: EvaluationProcessorConfig,
    next: EvaluationRecordConsumer,
  ): EvaluationProcessor {
    return createEvaluationProcessor({
      store: settings.store,
      config,
      registry: settings.registry,
      logger: settings.logger,
      onRecorded: (record) => next.record(record),
      onSkipped: (skip) => next.skipped?.(skip),
      ...(settings.clock ? { clock: settings.clock } : {}),
      ...(settings.tracerProvider ? { tracerProvider: settings.tracerProvider } : {}),
      // Replicas share a PostgreSQL ledger's queue: each evaluation started is leased to this process.
      ...(config.ledger.kind === 'postgres'
        ? { lease: { owner: settings.leaseOwner ?? leaseOwner(), durationMs: config.leaseDurationMs } }
        : {}),
    });
  },
} satisfies ComponentFactory<
  EvaluationProcessorConfig,
  EvaluationProcessorSettings,
  EvaluationProcessor,
  EvaluationRecordConsumer
>;

/** Unique to this process: a restarted collector is a new owner, whose predecessor's leases expire. */
function leaseOwner(): string {
  return `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
}
