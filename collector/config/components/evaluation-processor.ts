/**
 * `processors.evaluation`: the ledger, concurrency, evaluator modules, defaults and entries.
 * Relative paths (`modules`, `ledger.sqlite.path`) are resolved by the loader, which knows the
 * file that named them.
 */
import * as z from 'zod';
import type { EvaluationProcessorConfig, LedgerConfig } from '../evalon-config.ts';
import { emptyAsList, forbidden, section, whenRead } from '../schema-kit.ts';
import { count, duration, ratio, text } from '../values.ts';
import { evaluatorsSchema } from './evaluator-bindings.ts';

export const DEFAULT_SQLITE_PATH = './data/ledger.db';
export const DEFAULT_CONCURRENCY = 64;
/** How long an evaluation is run again while its model is unavailable (an outage), before it fails. */
export const DEFAULT_UNAVAILABLE_RETRY_FOR_MS = 3_600_000;
/** How long a replica's claim on an evaluation it started lasts unless renewed (PostgreSQL ledger). */
export const DEFAULT_LEASE_DURATION_MS = 30_000;
export const DEFAULT_EVALUATOR_ENABLED = true;
export const DEFAULT_SAMPLING_RATIO = 1.0;
export const DEFAULT_TRIGGER_ON_FAILURE = false;

const NO_PROPERTY_DEFAULTS = () =>
  'is not allowed under defaults: an evaluator property has no default (set it on the evaluator entry or on a binding)';
const NOT_A_DEFAULT = 'has no default (set it on each evaluator entry or binding)';

/** A connection URL; messages never echo it, since it usually holds a password. */
function postgresUrl() {
  return z
    .unknown()
    .superRefine((value, context) => {
      if (value === undefined) {
        context.addIssue({ code: 'custom', message: 'is required' });
      } else if (typeof value !== 'string' || !/^postgres(ql)?:\/\/\S+$/.test(value)) {
        context.addIssue({ code: 'custom', message: 'must be a postgres:// or postgresql:// URL' });
      }
    })
    .transform((value) => value as string);
}

/** This replica's id on a shared ledger: printable, at most 200 characters (the store checks the same). */
function replicaId() {
  return text().superRefine((value, context) => {
    if (value.length > 200 || /[\u0000-\u001f]/.test(value)) {
      context.addIssue({ code: 'custom', message: 'must be at most 200 printable characters' });
    }
  });
}

const ledgerSchema = section({
  sqlite: section({ path: text().default(DEFAULT_SQLITE_PATH) }).optional(),
  postgres: section({ url: postgresUrl(), replica_id: replicaId().optional() }).optional(),
})
  .superRefine((ledger, context) => {
    if (ledger.sqlite && ledger.postgres) {
      context.addIssue({ code: 'custom', path: [], message: 'sets both sqlite and postgres (choose one)' });
    }
  }, whenRead())
  .transform((ledger): LedgerConfig => {
    if (ledger.postgres) {
      const { url, replica_id: replicaId } = ledger.postgres;
      return { kind: 'postgres', url, ...(replicaId !== undefined ? { replicaId } : {}) };
    }
    return { kind: 'sqlite', path: ledger.sqlite?.path ?? DEFAULT_SQLITE_PATH };
  });

const defaultsSchema = section({
  evaluator: section(
    {
      enabled: z.boolean().default(DEFAULT_EVALUATOR_ENABLED),
      'sampling-ratio': forbidden('is a binding setting (set it under defaults::agent)'),
      'trigger-on-failure': forbidden('is a binding setting (set it under defaults::agent)'),
      trigger: forbidden(NOT_A_DEFAULT),
      'control-id': forbidden(NOT_A_DEFAULT),
      agents: forbidden(NOT_A_DEFAULT),
      'agent-roles': forbidden(NOT_A_DEFAULT),
    },
    { explainUnknown: NO_PROPERTY_DEFAULTS },
  ),
  agent: section(
    {
      'sampling-ratio': ratio().default(DEFAULT_SAMPLING_RATIO),
      'trigger-on-failure': z.boolean().default(DEFAULT_TRIGGER_ON_FAILURE),
      enabled: forbidden(
        'is not a binding default (bindings are enabled unless they say otherwise; to disable evaluators by default set defaults::evaluator::enabled: false)',
      ),
      trigger: forbidden(NOT_A_DEFAULT),
      'control-id': forbidden(NOT_A_DEFAULT),
      agents: forbidden(NOT_A_DEFAULT),
      'agent-roles': forbidden(NOT_A_DEFAULT),
    },
    { explainUnknown: NO_PROPERTY_DEFAULTS },
  ),
});

export const evaluationProcessorSchema = section({
  ledger: ledgerSchema,
  concurrency: count(1).default(DEFAULT_CONCURRENCY),
  model_unavailable_retry_for: duration({ positive: true }).default(DEFAULT_UNAVAILABLE_RETRY_FOR_MS),
  lease_duration: duration({ positive: true }).default(DEFAULT_LEASE_DURATION_MS),
  modules: emptyAsList(z.array(text())),
  defaults: defaultsSchema,
  evaluators: evaluatorsSchema,
}).transform(
  (processor): EvaluationProcessorConfig => ({
    ledger: processor.ledger,
    concurrency: processor.concurrency,
    modelUnavailableRetryForMs: processor.model_unavailable_retry_for,
    leaseDurationMs: processor.lease_duration,
    modules: processor.modules,
    defaults: {
      evaluator: { enabled: processor.defaults.evaluator.enabled },
      agent: {
        samplingRatio: processor.defaults.agent['sampling-ratio'],
        triggerOnFailure: processor.defaults.agent['trigger-on-failure'],
      },
    },
    evaluators: processor.evaluators,
  }),
);
