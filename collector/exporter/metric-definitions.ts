/**
 * The collector's metrics as data (as an OpenTelemetry Collector component's `metadata.yaml`):
 * OTel name, instrument, unit, bucket boundaries, attributes. `collector-metrics.ts` creates the
 * instruments from this table; docs/metrics.md documents it with the Prometheus names that result.
 *
 * Attributes are low-cardinality only: evaluator ids come from configuration, agent ids are
 * capped (`MAX_AGENT_LABELS`), outcomes, subjects (`interaction`, `conversation`) and token types
 * are fixed sets. Never an interaction id, a conversation id, a trace id or any text.
 */
import {
  EVALON_EVALUATIONS_METRIC,
  EVALON_EVALUATIONS_SKIPPED_METRIC,
  EVALON_JUDGE_CIRCUIT_STATE_METRIC,
  EVALON_EVALUATION_DURATION_METRIC,
  EVALON_EVALUATION_LAG_METRIC,
  EVALON_EVALUATION_QUEUE_SIZE_METRIC,
  EVALON_EVALUATION_RUNNING_METRIC,
  EVALON_EVALUATION_AGREEMENT_METRIC,
  EVALON_EVALUATION_SCORE_METRIC,
  EVALON_INTERACTIONS_METRIC,
  EVALON_PENDING_SPANS_METRIC,
  EVALON_PENDING_TRACES_METRIC,
  EVALON_WAITING_TRACES_METRIC,
  EVALON_SPANS_RECEIVED_METRIC,
  EVALON_TRACES_SPLIT_METRIC,
  EVALON_EXPORTER_FAILURES_METRIC,
  EVALON_RECEIVER_REFUSED_SPANS_METRIC,
  EVALON_SPANS_LATE_METRIC,
  EVALON_TRACES_EVICTED_METRIC,
  EVALON_LEDGER_PRUNED_METRIC,
  EVALON_LEDGER_SIZE_METRIC,
  GEN_AI_CLIENT_TOKEN_USAGE_METRIC,
} from '../../src/model/telemetry-names.ts';

/** Beyond this many distinct agent ids, the `agent` attribute of new agents reads `_other`. */
export const MAX_AGENT_LABELS = 500;
export const OTHER_AGENT_LABEL = '_other';

/** Scores are on the evaluator's own scale: 0..1 is usual, 1..5 and 1..10 scales are common. */
export const SCORE_BUCKETS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 3, 4, 5, 7.5, 10, 100];
/** A rule-based evaluator takes microseconds to milliseconds, an LLM judge seconds to minutes. */
export const DURATION_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 300,
];
/**
 * Interaction end to verdict: at least the settle window (2 s by default), minutes under a
 * backlog, hours to days for evaluations resumed after an outage or run by a backfill.
 */
export const LAG_BUCKETS = [0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];
/** `gen_ai.client.token.usage`'s advisory boundaries (semantic conventions). */
export const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

export const METRICS = {
  evaluations: {
    name: EVALON_EVALUATIONS_METRIC,
    unit: '{evaluation}',
    description:
      'Evaluation outcomes recorded, by evaluator, agent, outcome (pass, fail, inconclusive, error) and subject ' +
      '(interaction, conversation).',
  },
  skipped: {
    name: EVALON_EVALUATIONS_SKIPPED_METRIC,
    unit: '{evaluation}',
    description:
      'Evaluations not started, by evaluator, agent and reason (budget: the token budget of the entry or binding ' +
      'was spent); not recorded, so a backfill can evaluate them later.',
  },
  judgeCircuit: {
    name: EVALON_JUDGE_CIRCUIT_STATE_METRIC,
    unit: '1',
    description:
      'The circuit breaker in front of each judge model: 0 closed, 1 open (calls wait), 2 half-open (one probe call ' +
      'let through).',
  },
  score: {
    name: EVALON_EVALUATION_SCORE_METRIC,
    unit: '1',
    description: 'Scores of verdicts that carry one, by evaluator, agent and subject.',
    buckets: SCORE_BUCKETS,
  },
  duration: {
    name: EVALON_EVALUATION_DURATION_METRIC,
    unit: 's',
    description:
      'Time from the start of the attempt that recorded an outcome to the outcome, by evaluator, agent, outcome ' +
      'and subject.',
    buckets: DURATION_BUCKETS,
  },
  lag: {
    name: EVALON_EVALUATION_LAG_METRIC,
    unit: 's',
    description:
      'Time from the end of the evaluated interaction (for a conversation: from when it was over and its ' +
      'evaluation triggered) to its recorded outcome, by evaluator, agent, outcome and subject.',
    buckets: LAG_BUCKETS,
  },
  tokens: {
    name: GEN_AI_CLIENT_TOKEN_USAGE_METRIC,
    unit: '{token}',
    description:
      "Tokens used by evaluators' model calls (LLM judges), by evaluator, agent, provider, model and token type.",
    buckets: TOKEN_BUCKETS,
  },
  interactions: {
    name: EVALON_INTERACTIONS_METRIC,
    unit: '{interaction}',
    description: 'Interactions recorded in the ledger, by agent and whether the interaction failed.',
  },
  spansReceived: {
    name: EVALON_SPANS_RECEIVED_METRIC,
    unit: '{span}',
    description: 'Spans received and stored by the collector.',
  },
  tracesSplit: {
    name: EVALON_TRACES_SPLIT_METRIC,
    unit: '{trace}',
    description:
      'Traces whose spans reached more than one replica sharing the ledger, as found by this replica (each replica ' +
      'that held part of a trace may count it).',
  },
  pendingTraces: {
    name: EVALON_PENDING_TRACES_METRIC,
    unit: '{trace}',
    description: 'Traces held in memory whose interactions are not complete yet.',
  },
  pendingSpans: {
    name: EVALON_PENDING_SPANS_METRIC,
    unit: '{span}',
    description: 'Spans held in memory whose interactions are not complete yet.',
  },
  waitingTraces: {
    name: EVALON_WAITING_TRACES_METRIC,
    unit: '{trace}',
    description:
      'Traces acknowledged and stored while max_pending_traces were pending, waiting for room (max_waiting_traces).',
  },
  queueSize: {
    name: EVALON_EVALUATION_QUEUE_SIZE_METRIC,
    unit: '{evaluation}',
    description: 'Evaluations queued in the ledger and not yet recorded (the evaluation backlog).',
  },
  running: {
    name: EVALON_EVALUATION_RUNNING_METRIC,
    unit: '{evaluation}',
    description: 'Evaluations running now.',
  },
  agreement: {
    name: EVALON_EVALUATION_AGREEMENT_METRIC,
    unit: '1',
    description:
      "Agreement between two evaluator entries over their last window of subjects judged by both: raw rate, Cohen's " +
      'kappa, mean absolute score difference (statistic).',
  },
  refusedSpans: {
    name: EVALON_RECEIVER_REFUSED_SPANS_METRIC,
    unit: '{span}',
    description:
      'Spans the OTLP receiver refused, by reason (auth, too_large, bad_request, throttled) and protocol (http, ' +
      'grpc); a request refused before its spans were decoded counts as one.',
  },
  tracesEvicted: {
    name: EVALON_TRACES_EVICTED_METRIC,
    unit: '{trace}',
    description:
      'Traces decided early because more than max_pending_traces were pending (their interactions time out).',
  },
  spansLate: {
    name: EVALON_SPANS_LATE_METRIC,
    unit: '{span}',
    description: 'Spans that arrived after their interaction was recorded: kept as late spans, not in the record.',
  },
  exporterFailures: {
    name: EVALON_EXPORTER_FAILURES_METRIC,
    unit: '{export}',
    description: 'Exports that failed after retries, by exporter id and signal (traces, logs, metrics).',
  },
  ledgerSize: {
    name: EVALON_LEDGER_SIZE_METRIC,
    unit: 'By',
    description:
      "The ledger's size: state used (its data, what retention's max_size bounds) and free (space it holds " +
      'without using it: SQLite free pages not yet given back and its WAL, PostgreSQL free and dead space).',
  },
  ledgerPruned: {
    name: EVALON_LEDGER_PRUNED_METRIC,
    unit: '{row}',
    description:
      'What ledger retention pruned, by kind (interactions, late_spans, conversations, evaluations, reviews), in rows.',
  },
} as const;
