/**
 * `processors.evaluation`: the ledger, concurrency, evaluator modules, defaults and evaluator
 * entries with their bindings. Reserved keys (`enabled`, `trigger`, `sampling-ratio`, …) are
 * checked for where they are written and what they hold; any other key on an entry or a binding is
 * a property of the evaluator, kept as written. Which binding applies to an agent and its effective
 * settings are the evaluation runtime's business. Relative paths (`modules`, `ledger.sqlite.path`)
 * are resolved by the loader, which knows the file that named them.
 */
import * as z from 'zod';
import { forbidden } from '../../../src/config/strict-object.ts';
import { emptyAsList, emptyAsMapping, section, whenRead } from '../../config/schema-kit.ts';
import { count, duration, ratio, text } from '../../config/values.ts';
import { entryIdProblem, normalEntryId } from './entry-id.ts';
import { budgetSchema, versionSchema, type BudgetConfig } from './entry-settings-config.ts';
import { retentionSchema, type RetentionPolicy } from '../../retention/config.ts';

export type { BudgetConfig, RetentionPolicy };

export const DEFAULT_SQLITE_PATH = './data/ledger.db';
export const DEFAULT_CONCURRENCY = 64;
/** How long an evaluation is run again while its model is unavailable (an outage), before it fails. */
export const DEFAULT_UNAVAILABLE_RETRY_FOR_MS = 3_600_000;
/** How long a replica's claim on an evaluation it started lasts unless renewed (PostgreSQL ledger). */
export const DEFAULT_LEASE_DURATION_MS = 30_000;
export const DEFAULT_EVALUATOR_ENABLED = true;
export const DEFAULT_SAMPLING_RATIO = 1.0;
export const DEFAULT_TRIGGER_ON_FAILURE = false;

export const DEFAULT_TRIGGER = 'interaction';
/** What a binding triggers its evaluator on: each interaction, or each conversation once it is over. */
export const TRIGGERS = ['interaction', 'conversation'] as const;
export type Trigger = (typeof TRIGGERS)[number];
/** Pairs of verdicts an agreement statistic is computed over, per pair of entries. */
export const DEFAULT_AGREEMENT_WINDOW = 500;

export type LedgerConfig = (
  | { kind: 'sqlite'; path: string }
  | {
      kind: 'postgres';
      url: string;
      /**
       * `replica_id`: this collector's id among replicas sharing the ledger (default
       * `EVALON_REPLICA_ID`, else the host name).
       */
      replicaId?: string;
    }
) & {
  /** `retention`: what the ledger's pruner removes; absent when the section sets no key (nothing is pruned). */
  retention?: RetentionPolicy;
};

/** One binding under `agents` or `agent-roles` of an evaluator entry. */
export interface BindingConfig {
  /**
   * `interaction` (the default): the evaluator judges each interaction of the agent.
   * `conversation`: it judges each conversation of the agent once it is over (every revision).
   */
  trigger: Trigger;
  enabled?: boolean;
  /** `sampling-ratio`, in [0, 1]. */
  samplingRatio?: number;
  /** `trigger-on-failure`. */
  triggerOnFailure?: boolean;
  /** `budget`: the tokens this binding's evaluations may spend, by itself. */
  budget?: BudgetConfig;
  /** Every key that is not reserved: the evaluator's own properties, as written. */
  properties: Record<string, unknown>;
  /** The binding as written (reserved keys included), for `config()`. */
  raw: Record<string, unknown>;
}

/** One entry under `processors.evaluation.evaluators`, keyed by its entry id (`type` or `type/name`). */
export interface EvaluatorEntryConfig {
  enabled?: boolean;
  /** `control-id`: recorded on every evaluation this evaluator runs. */
  controlId?: string;
  /** `version`: the evaluator version its outcomes are recorded under (default: the evaluator's own). */
  version?: string;
  /** `shadow: true`: its verdicts are recorded and exported, marked, and left out of pass rates. */
  shadow?: boolean;
  /** `budget`: the tokens all its bindings' evaluations may spend together. */
  budget?: BudgetConfig;
  /** Every key that is not reserved, as written. */
  properties: Record<string, unknown>;
  /** Bindings keyed by agent id. */
  agents: Record<string, BindingConfig>;
  /** Bindings keyed by agent role; `*` binds every agent that has any role. */
  agentRoles: Record<string, BindingConfig>;
  /** The entry as written, reserved keys included, without `agents` and `agent-roles`. */
  raw: Record<string, unknown>;
}

export interface EvaluationDefaultsConfig {
  /** `defaults.evaluator`: defaults of evaluator entries. */
  evaluator: { enabled: boolean };
  /** `defaults.agent`: defaults of bindings. */
  agent: { samplingRatio: number; triggerOnFailure: boolean };
}

/** `processors.evaluation`: bindings -> evaluations. */
export interface EvaluationProcessorConfig {
  ledger: LedgerConfig;
  /** Evaluations running at once in this process. */
  concurrency: number;
  /** How long an evaluation is run again while its model is unavailable, before it is recorded as failed. */
  modelUnavailableRetryForMs: number;
  /**
   * With the PostgreSQL ledger: how long a replica's claim (lease) on an evaluation it started
   * lasts unless renewed; a replica that dies leaves its work to others after this long.
   */
  leaseDurationMs: number;
  /** Files that register evaluators, as absolute paths. */
  modules: string[];
  defaults: EvaluationDefaultsConfig;
  evaluators: Record<string, EvaluatorEntryConfig>;
  /** `agreement`: pairs of entries whose verdicts are compared (rate, Cohen's kappa, score MAE). */
  agreement: Array<{ a: string; b: string; window: number }>;
}

/** Keys the runtime reads; never passed to an evaluator as properties. */
export const RESERVED_KEYS = [
  'enabled',
  'trigger',
  'sampling-ratio',
  'trigger-on-failure',
  'control-id',
  'version',
  'shadow',
  'budget',
  'agents',
  'agent-roles',
] as const;

const WHERE_BINDING_SETTINGS_GO =
  'is not allowed on an evaluator entry (set it on a binding under agents or agent-roles, or under ' +
  'processors::evaluation::defaults::agent)';

const bindingSchema = emptyAsMapping(
  z.looseObject({
    trigger: z.enum(TRIGGERS).optional(),
    enabled: z.boolean().optional(),
    'sampling-ratio': ratio().optional(),
    'trigger-on-failure': z.boolean().optional(),
    'control-id': forbidden('is not allowed on a binding (set it on the evaluator entry)'),
    version: forbidden(
      'is not allowed on a binding (set it on the evaluator entry: all its bindings share one version)',
    ),
    shadow: forbidden(
      'is not allowed on a binding (set it on the evaluator entry; for a shadow on some agents, add an entry of ' +
        'the same type with its own name, such as llm-judge/candidate)',
    ),
    budget: budgetSchema.optional(),
    agents: forbidden('is not allowed inside a binding (bindings do not nest)'),
    'agent-roles': forbidden('is not allowed inside a binding (bindings do not nest)'),
  }),
).transform((binding): BindingConfig => {
  const raw = written(binding);
  return {
    trigger: binding.trigger ?? DEFAULT_TRIGGER,
    ...(binding.enabled !== undefined ? { enabled: binding.enabled } : {}),
    ...(binding['sampling-ratio'] !== undefined ? { samplingRatio: binding['sampling-ratio'] } : {}),
    ...(binding['trigger-on-failure'] !== undefined ? { triggerOnFailure: binding['trigger-on-failure'] } : {}),
    ...(binding.budget !== undefined ? { budget: binding.budget } : {}),
    properties: withoutReserved(raw),
    raw,
  };
});

/** Bindings keyed by agent id; `*` exists only under agent-roles. */
const agentBindingsSchema = emptyAsMapping(
  z
    .object({ '*': forbidden('is only allowed under agent-roles, where it binds every agent that has any role') })
    .catchall(bindingSchema),
).transform(({ '*': _star, ...bindings }) => bindings as Record<string, BindingConfig>);

const roleBindingsSchema = emptyAsMapping(z.record(z.string(), bindingSchema));

export const evaluatorEntrySchema = emptyAsMapping(
  z.looseObject({
    enabled: z.boolean().optional(),
    'control-id': text().optional(),
    version: versionSchema().optional(),
    shadow: z.boolean().optional(),
    budget: budgetSchema.optional(),
    agents: agentBindingsSchema,
    'agent-roles': roleBindingsSchema,
    'sampling-ratio': forbidden(WHERE_BINDING_SETTINGS_GO),
    'trigger-on-failure': forbidden(WHERE_BINDING_SETTINGS_GO),
    trigger: forbidden(
      'is not allowed on an evaluator entry (each binding under agents or agent-roles declares its trigger)',
    ),
  }),
).transform((entry): EvaluatorEntryConfig => {
  const { agents, 'agent-roles': agentRoles, ...rest } = entry;
  const raw = written(rest);
  return {
    ...(entry.enabled !== undefined ? { enabled: entry.enabled } : {}),
    ...(entry['control-id'] !== undefined ? { controlId: entry['control-id'] } : {}),
    ...(entry.version !== undefined ? { version: entry.version } : {}),
    ...(entry.shadow !== undefined ? { shadow: entry.shadow } : {}),
    ...(entry.budget !== undefined ? { budget: entry.budget } : {}),
    properties: withoutReserved(raw),
    agents,
    agentRoles,
    raw,
  };
});

/**
 * Entries keyed by entry id (`type` or `type/name`, entry-id.ts). Whether the type is an evaluator
 * this collector knows is checked where the evaluators are loaded (load-evaluator-modules.ts).
 */
export const evaluatorsSchema = emptyAsMapping(
  z.record(z.string(), evaluatorEntrySchema).superRefine((entries, context) => {
    const seen = new Map<string, string>();
    for (const id of Object.keys(entries)) {
      const problem = entryIdProblem(id);
      if (problem !== undefined) context.addIssue({ code: 'custom', path: [id], message: problem });
      const first = seen.get(normalEntryId(id));
      if (first !== undefined)
        context.addIssue({
          code: 'custom',
          path: [id],
          message:
            `is the same entry id as ${JSON.stringify(first)} (entry ids that differ only in case are one id; ` +
            'rename one)',
        });
      else seen.set(normalEntryId(id), id);
    }
  }, whenRead()),
);

/** The keys that were written (zod leaves absent optional keys as `undefined`). */
function written(mapping: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(mapping).filter(([, value]) => value !== undefined));
}

function withoutReserved(mapping: Record<string, unknown>): Record<string, unknown> {
  const reserved: readonly string[] = RESERVED_KEYS;
  return Object.fromEntries(Object.entries(mapping).filter(([key]) => !reserved.includes(key)));
}

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
    if (value.length > 200 || hasControlCharacter(value)) {
      context.addIssue({ code: 'custom', message: 'must be at most 200 printable characters' });
    }
  });
}

/** U+0000 to U+001F: not printable (a regex of them reads as a typo to linters). */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) if (value.charCodeAt(index) < 0x20) return true;
  return false;
}

const ledgerSchema = section({
  sqlite: section({ path: text().default(DEFAULT_SQLITE_PATH) }).optional(),
  postgres: section({ url: postgresUrl(), replica_id: replicaId().optional() }).optional(),
  retention: retentionSchema,
})
  .superRefine((ledger, context) => {
    if (ledger.sqlite && ledger.postgres) {
      context.addIssue({ code: 'custom', path: [], message: 'sets both sqlite and postgres (choose one)' });
    }
  }, whenRead())
  .transform((ledger): LedgerConfig => {
    const retention = Object.keys(ledger.retention).length > 0 ? { retention: ledger.retention } : {};
    if (ledger.postgres) {
      const { url, replica_id: replicaId } = ledger.postgres;
      return { kind: 'postgres', url, ...(replicaId !== undefined ? { replicaId } : {}), ...retention };
    }
    return { kind: 'sqlite', path: ledger.sqlite?.path ?? DEFAULT_SQLITE_PATH, ...retention };
  });

const defaultsSchema = section({
  evaluator: section(
    {
      enabled: z.boolean().default(DEFAULT_EVALUATOR_ENABLED),
      'sampling-ratio': forbidden('is a binding setting (set it under defaults::agent)'),
      'trigger-on-failure': forbidden('is a binding setting (set it under defaults::agent)'),
      trigger: forbidden(NOT_A_DEFAULT),
      'control-id': forbidden(NOT_A_DEFAULT),
      version: forbidden(NOT_A_DEFAULT),
      shadow: forbidden(NOT_A_DEFAULT),
      budget: forbidden(NOT_A_DEFAULT),
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
        'is not a binding default (bindings are enabled unless they say otherwise; to disable evaluators by default ' +
          'set defaults::evaluator::enabled: false)',
      ),
      trigger: forbidden(NOT_A_DEFAULT),
      'control-id': forbidden(NOT_A_DEFAULT),
      version: forbidden(NOT_A_DEFAULT),
      shadow: forbidden(NOT_A_DEFAULT),
      budget: forbidden(NOT_A_DEFAULT),
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
  agreement: emptyAsList(
    z.array(
      section({
        between: z.tuple([text(), text()], { error: 'must be a list of two evaluator entry ids, [a, b]' }),
        window: count(1).default(DEFAULT_AGREEMENT_WINDOW),
      }),
    ),
  ),
})
  .superRefine(
    (processor, context) => {
      const ids = Object.keys(processor.evaluators);
      processor.agreement.forEach((pair, index) => {
        const [a, b] = pair.between;
        if (a === b)
          context.addIssue({
            code: 'custom',
            path: ['agreement', index, 'between'],
            message: `pairs ${a} with itself`,
          });
        for (const [at, id] of [a, b].entries()) {
          if (!ids.includes(id))
            context.addIssue({
              code: 'custom',
              path: ['agreement', index, 'between', at],
              message: `names "${id}", which is not an evaluator entry (configured: ${ids.join(', ') || 'none'})`,
            });
        }
      });
    },
    whenRead('agreement', 'evaluators'),
  )
  .transform(
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
      agreement: processor.agreement.map((pair) => ({ a: pair.between[0], b: pair.between[1], window: pair.window })),
    }),
  );
