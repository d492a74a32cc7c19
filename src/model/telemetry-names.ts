/**
 * The names of the telemetry Evalon makes, beside the attribute names in `attributes.ts`: its
 * instrumentation scopes, its span events and its metrics. (The metrics' units, descriptions and
 * buckets are in `collector/exporter/metric-definitions.ts`.)
 */

// Instrumentation scopes.

/** The agent spans `invokeAgent` makes. */
export const INSTRUMENTATION_SCOPE = 'evalon.instrumentation';
/** Every span, log record and metric the collector makes. */
export const COLLECTOR_SCOPE = 'evalon.collector';
/** The agent-turn spans of a simulation. */
export const SIMULATION_SCOPE = 'evalon.simulation';

// Events.

/** One evaluation's outcome (GenAI semconv), as a log record and as an event of the evaluation span. */
export const GEN_AI_EVALUATION_RESULT_EVENT = 'gen_ai.evaluation.result';
/** One retried HTTP attempt of a judge's model call, on its judge-call span. */
export const EVALON_MODEL_RETRY_EVENT = 'evalon.model.retry';
/** An exception recorded on a span (OTel semconv). */
export const EXCEPTION_EVENT = 'exception';

// Metrics (OTel names; docs/metrics.md lists the Prometheus names they become).

export const EVALON_EVALUATIONS_METRIC = 'evalon.evaluations';
/** Evaluations not started (their entry's token budget was spent). */
export const EVALON_EVALUATIONS_SKIPPED_METRIC = 'evalon.evaluations.skipped';
/** The circuit breaker in front of a judge model: 0 closed, 1 open, 2 half-open. */
export const EVALON_JUDGE_CIRCUIT_STATE_METRIC = 'evalon.judge.circuit.state';
export const EVALON_EVALUATION_SCORE_METRIC = 'evalon.evaluation.score';
export const EVALON_EVALUATION_DURATION_METRIC = 'evalon.evaluation.duration';
export const EVALON_EVALUATION_LAG_METRIC = 'evalon.evaluation.lag';
/** GenAI semconv's client metric: the tokens evaluators' model calls used. */
export const GEN_AI_CLIENT_TOKEN_USAGE_METRIC = 'gen_ai.client.token.usage';
export const EVALON_INTERACTIONS_METRIC = 'evalon.interactions';
export const EVALON_SPANS_RECEIVED_METRIC = 'evalon.spans.received';
export const EVALON_TRACES_SPLIT_METRIC = 'evalon.traces.split';
export const EVALON_PENDING_TRACES_METRIC = 'evalon.pending.traces';
export const EVALON_PENDING_SPANS_METRIC = 'evalon.pending.spans';
export const EVALON_WAITING_TRACES_METRIC = 'evalon.waiting.traces';
export const EVALON_EVALUATION_QUEUE_SIZE_METRIC = 'evalon.evaluation.queue.size';
export const EVALON_EVALUATION_RUNNING_METRIC = 'evalon.evaluation.running';
/** Agreement between two evaluator entries (`a`, `b`), by `statistic`: rate, kappa, score_mae. */
export const EVALON_EVALUATION_AGREEMENT_METRIC = 'evalon.evaluation.agreement';
/** The collector's own health: what it refused, evicted, received late, failed to export. */
export const EVALON_RECEIVER_REFUSED_SPANS_METRIC = 'evalon.receiver.refused_spans';
export const EVALON_TRACES_EVICTED_METRIC = 'evalon.traces.evicted';
export const EVALON_SPANS_LATE_METRIC = 'evalon.spans.late';
export const EVALON_EXPORTER_FAILURES_METRIC = 'evalon.exporter.failures';
/** The ledger's size in bytes (`state`: used, free) and what retention pruned from it (`kind`). */
export const EVALON_LEDGER_SIZE_METRIC = 'evalon.ledger.size';
export const EVALON_LEDGER_PRUNED_METRIC = 'evalon.ledger.pruned';
