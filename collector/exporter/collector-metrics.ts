/**
 * The collector's metrics (docs/metrics.md) as OpenTelemetry instruments on one meter: verdict counters
 * and histograms recorded as outcomes arrive, interaction counts as interactions are recorded,
 * and gauges read from the running components at each collection. Which readers collect them
 * (the Prometheus endpoint, OTLP) is decided by the factory; with none, the meter is a no-op.
 */
import { ValueType, type Attributes, type Meter } from '@opentelemetry/api';
import type { EvaluationRecord } from '../../src/model/records.ts';
import type { InteractionRecord } from '../../src/model/records.ts';
import { USAGE_ATTRIBUTES } from '../evaluators/usage-attributes.ts';
import {
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_TOKEN_TYPE,
  METRIC_AGENT,
  METRIC_AGREEMENT_A,
  METRIC_AGREEMENT_B,
  METRIC_EVALUATOR,
  METRIC_STATISTIC,
  METRIC_FAILED,
  METRIC_EXPORTER,
  METRIC_KIND,
  METRIC_MODEL,
  METRIC_OUTCOME,
  METRIC_SUBJECT,
  METRIC_PROTOCOL,
  METRIC_REASON,
  METRIC_SHADOW,
  METRIC_SIGNAL,
  METRIC_STATE,
} from '../../src/model/attributes.ts';
import { MAX_AGENT_LABELS, METRICS, OTHER_AGENT_LABEL } from './metric-definitions.ts';
import { outcomeLabel, subjectLabel } from './verdict-attributes.ts';

/** Where the gauges and the spans counter read from; each is optional. */
export interface CollectorMetricSources {
  /** Spans received and stored so far (a monotonic count). */
  spansReceived?(): number;
  /** Traces found split across replicas so far (a monotonic count). */
  tracesSplit?(): number;
  pendingTraces?(): number;
  pendingSpans?(): number;
  /** Traces stored past `max_pending_traces`, waiting for room. */
  waitingTraces?(): number;
  /** Evaluations queued and not yet recorded; may read the ledger. */
  evaluationQueueSize?(): number | Promise<number>;
  evaluationsRunning?(): number;
  /** Each judge model's circuit breaker: 0 closed, 1 open, 2 half-open. */
  judgeCircuits?(): ReadonlyArray<{ model: string; state: number }>;
  /** Spans the receiver refused so far, by reason and protocol (monotonic counts). */
  refusedSpans?(): ReadonlyArray<{ reason: string; protocol: string; count: number }>;
  /** Traces evicted undecided so far (`max_pending_traces`). */
  evictedTraces?(): number;
  /** Spans that arrived after their interaction was recorded, so far. */
  lateSpans?(): number;
  /** Failed exports so far, by exporter id and signal. */
  exportFailures?(): ReadonlyArray<{ exporter: string; signal: string; count: number }>;
  /** The ledger's size in bytes, used and free; may read the ledger. */
  ledgerSize?(): Promise<{ usedBytes: number; freeBytes: number }>;
  /** Rows retention pruned so far, by kind (monotonic counts). */
  ledgerPruned?(): ReadonlyArray<{ kind: string; count: number }>;
  /** Agreement between pairs of evaluator entries (a statistic that is null has no value). */
  agreement?(): ReadonlyArray<{
    a: string;
    b: string;
    rate: number | null;
    kappa: number | null;
    scoreMae: number | null;
  }>;
}

/** Token usage of an evaluator's model calls (`gen_ai.client.token.usage`). */
export interface TokenUsage {
  evaluatorId: string;
  /** The agent whose interaction was evaluated. */
  agentId?: string;
  /** `gen_ai.provider.name`, e.g. `anthropic`. */
  provider?: string;
  /** `gen_ai.request.model`. */
  model?: string;
  /** `gen_ai.operation.name`; `chat` when absent. */
  operation?: string;
  inputTokens?: number;
  outputTokens?: number;
}

export interface CollectorMetrics {
  /** Counts an outcome and records its score and duration (the verdict recorder calls this). */
  recordEvaluation(record: EvaluationRecord): void;
  /**
   * Interaction end (for a conversation: the moment it was known over) to outcome, in seconds (the
   * verdict recorder calls this once it knows the start).
   */
  recordLag(record: EvaluationRecord, seconds: number): void;
  /** Counts an evaluation not started (`reason`: `budget`, its token budget was spent). */
  recordSkipped(skip: { evaluatorId: string; agentId: string; reason: string }): void;
  /** Counts interactions newly recorded in the ledger (the interactions processor's `next`). */
  recordInteractions(records: readonly InteractionRecord[]): void;
  recordTokenUsage(usage: TokenUsage): void;
  /** Sets what the gauges and the observed counters read (given at creation otherwise); others stay. */
  observe(sources: CollectorMetricSources): void;
}

/** Evaluation attributes an LLM judge sets to report its token usage (see docs/metrics.md). */
export { USAGE_ATTRIBUTES };

export function createCollectorMetrics(meter: Meter, initialSources: CollectorMetricSources = {}): CollectorMetrics {
  const evaluations = meter.createCounter(METRICS.evaluations.name, {
    unit: METRICS.evaluations.unit,
    description: METRICS.evaluations.description,
    valueType: ValueType.INT,
  });
  const histogram = (
    metric: { name: string; unit: string; description: string; buckets: readonly number[] },
    valueType = ValueType.DOUBLE,
  ) =>
    meter.createHistogram(metric.name, {
      unit: metric.unit,
      description: metric.description,
      valueType,
      advice: { explicitBucketBoundaries: [...metric.buckets] },
    });
  const score = histogram(METRICS.score);
  const duration = histogram(METRICS.duration);
  const lag = histogram(METRICS.lag);
  const tokens = histogram(METRICS.tokens, ValueType.INT);
  const skipped = meter.createCounter(METRICS.skipped.name, {
    unit: METRICS.skipped.unit,
    description: METRICS.skipped.description,
    valueType: ValueType.INT,
  });
  const interactions = meter.createCounter(METRICS.interactions.name, {
    unit: METRICS.interactions.unit,
    description: METRICS.interactions.description,
    valueType: ValueType.INT,
  });

  let sources: CollectorMetricSources = { ...initialSources };
  const observed = (
    metric: { name: string; unit: string; description: string },
    kind: 'counter' | 'gauge',
    read: () => number | Promise<number> | undefined,
  ) => {
    const options = { unit: metric.unit, description: metric.description, valueType: ValueType.INT };
    const instrument =
      kind === 'counter'
        ? meter.createObservableCounter(metric.name, options)
        : meter.createObservableGauge(metric.name, options);
    instrument.addCallback(async (result) => {
      const value = await read();
      if (value !== undefined && Number.isFinite(value)) result.observe(value);
    });
  };
  observed(METRICS.spansReceived, 'counter', () => sources.spansReceived?.());
  observed(METRICS.tracesSplit, 'counter', () => sources.tracesSplit?.());
  observed(METRICS.pendingTraces, 'gauge', () => sources.pendingTraces?.());
  observed(METRICS.pendingSpans, 'gauge', () => sources.pendingSpans?.());
  observed(METRICS.waitingTraces, 'gauge', () => sources.waitingTraces?.());
  observed(METRICS.queueSize, 'gauge', () => sources.evaluationQueueSize?.());
  observed(METRICS.running, 'gauge', () => sources.evaluationsRunning?.());
  meter
    .createObservableGauge(METRICS.judgeCircuit.name, {
      unit: METRICS.judgeCircuit.unit,
      description: METRICS.judgeCircuit.description,
      valueType: ValueType.INT,
    })
    .addCallback((result) => {
      // Breakers are per base URL and model; the label is the model: the worst state of its breakers.
      const byModel = new Map<string, number>();
      for (const { model, state } of sources.judgeCircuits?.() ?? [])
        byModel.set(model, Math.max(byModel.get(model) ?? 0, state));
      for (const [model, state] of byModel) result.observe(state, { [METRIC_MODEL]: model });
    });
  observed(METRICS.tracesEvicted, 'counter', () => sources.evictedTraces?.());
  observed(METRICS.spansLate, 'counter', () => sources.lateSpans?.());
  meter
    .createObservableCounter(METRICS.refusedSpans.name, {
      unit: METRICS.refusedSpans.unit,
      description: METRICS.refusedSpans.description,
      valueType: ValueType.INT,
    })
    .addCallback((result) => {
      for (const { reason, protocol, count } of sources.refusedSpans?.() ?? [])
        result.observe(count, { [METRIC_REASON]: reason, [METRIC_PROTOCOL]: protocol });
    });
  meter
    .createObservableCounter(METRICS.exporterFailures.name, {
      unit: METRICS.exporterFailures.unit,
      description: METRICS.exporterFailures.description,
      valueType: ValueType.INT,
    })
    .addCallback((result) => {
      for (const { exporter, signal, count } of sources.exportFailures?.() ?? [])
        result.observe(count, { [METRIC_EXPORTER]: exporter, [METRIC_SIGNAL]: signal });
    });

  meter
    .createObservableGauge(METRICS.ledgerSize.name, {
      unit: METRICS.ledgerSize.unit,
      description: METRICS.ledgerSize.description,
      valueType: ValueType.INT,
    })
    .addCallback(async (result) => {
      const size = await sources.ledgerSize?.();
      if (!size) return;
      result.observe(size.usedBytes, { [METRIC_STATE]: 'used' });
      result.observe(size.freeBytes, { [METRIC_STATE]: 'free' });
    });
  meter
    .createObservableCounter(METRICS.ledgerPruned.name, {
      unit: METRICS.ledgerPruned.unit,
      description: METRICS.ledgerPruned.description,
      valueType: ValueType.INT,
    })
    .addCallback((result) => {
      for (const { kind, count } of sources.ledgerPruned?.() ?? []) result.observe(count, { [METRIC_KIND]: kind });
    });
  meter
    .createObservableGauge(METRICS.agreement.name, {
      unit: METRICS.agreement.unit,
      description: METRICS.agreement.description,
      valueType: ValueType.DOUBLE,
    })
    .addCallback((result) => {
      for (const pair of sources.agreement?.() ?? []) {
        const statistics = { rate: pair.rate, kappa: pair.kappa, score_mae: pair.scoreMae };
        for (const [statistic, value] of Object.entries(statistics)) {
          if (value === null || !Number.isFinite(value)) continue;
          result.observe(value, {
            [METRIC_AGREEMENT_A]: pair.a,
            [METRIC_AGREEMENT_B]: pair.b,
            [METRIC_STATISTIC]: statistic,
          });
        }
      }
    });

  const agentLabel = createAgentLabels(MAX_AGENT_LABELS);
  // `shadow` on every evaluation metric: pass rates leave shadow entries out with shadow!="true".
  const evaluationAttributes = (record: EvaluationRecord): Attributes => ({
    [METRIC_EVALUATOR]: record.evaluatorId,
    [METRIC_AGENT]: agentLabel(record.agentId),
    [METRIC_OUTCOME]: outcomeLabel(record),
    [METRIC_SUBJECT]: subjectLabel(record),
    [METRIC_SHADOW]: record.shadow === true ? 'true' : 'false',
  });

  function recordTokenUsage(usage: TokenUsage): void {
    const attributes: Attributes = {
      [GEN_AI_OPERATION_NAME]: usage.operation ?? 'chat',
      ...(usage.provider ? { [GEN_AI_PROVIDER_NAME]: usage.provider } : {}),
      ...(usage.model ? { [GEN_AI_REQUEST_MODEL]: usage.model } : {}),
      [METRIC_EVALUATOR]: usage.evaluatorId,
      ...(usage.agentId !== undefined ? { [METRIC_AGENT]: agentLabel(usage.agentId) } : {}),
    };
    if (isCount(usage.inputTokens)) tokens.record(usage.inputTokens, { ...attributes, [GEN_AI_TOKEN_TYPE]: 'input' });
    if (isCount(usage.outputTokens))
      tokens.record(usage.outputTokens, { ...attributes, [GEN_AI_TOKEN_TYPE]: 'output' });
  }

  return {
    recordEvaluation(record) {
      const attributes = evaluationAttributes(record);
      evaluations.add(1, attributes);
      const seconds = (Date.parse(record.completedAt) - Date.parse(record.startedAt)) / 1000;
      if (Number.isFinite(seconds)) duration.record(Math.max(0, seconds), attributes);
      const outcome = record.outcome;
      if (outcome.type === 'verdict' && outcome.evaluation.score !== undefined)
        score.record(outcome.evaluation.score, {
          [METRIC_EVALUATOR]: record.evaluatorId,
          [METRIC_AGENT]: agentLabel(record.agentId),
          [METRIC_SUBJECT]: subjectLabel(record),
          [METRIC_SHADOW]: record.shadow === true ? 'true' : 'false',
        });
      // Tokens are spent whether the judge then reaches a verdict or fails (its failed outcome carries them).
      const own =
        outcome.type === 'verdict'
          ? outcome.evaluation.attributes
          : outcome.type === 'failed'
            ? outcome.attributes
            : undefined;
      if (!own) return;
      const input = own[USAGE_ATTRIBUTES.inputTokens];
      const output = own[USAGE_ATTRIBUTES.outputTokens];
      if (typeof input === 'number' || typeof output === 'number') {
        const provider = own[USAGE_ATTRIBUTES.provider];
        const model = own[USAGE_ATTRIBUTES.model];
        recordTokenUsage({
          evaluatorId: record.evaluatorId,
          agentId: record.agentId,
          ...(typeof provider === 'string' ? { provider } : {}),
          ...(typeof model === 'string' ? { model } : {}),
          ...(typeof input === 'number' ? { inputTokens: input } : {}),
          ...(typeof output === 'number' ? { outputTokens: output } : {}),
        });
      }
    },
    recordLag(record, seconds) {
      if (Number.isFinite(seconds)) lag.record(Math.max(0, seconds), evaluationAttributes(record));
    },
    recordSkipped(skip) {
      skipped.add(1, {
        [METRIC_EVALUATOR]: skip.evaluatorId,
        [METRIC_AGENT]: agentLabel(skip.agentId),
        [METRIC_REASON]: skip.reason,
      });
    },
    recordInteractions(records) {
      for (const record of records)
        interactions.add(1, {
          [METRIC_AGENT]: agentLabel(record.agentId),
          [METRIC_FAILED]: record.failed ? 'true' : 'false',
        });
    },
    recordTokenUsage,
    observe(next) {
      sources = { ...sources, ...next };
    },
  };
}

function isCount(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value >= 0;
}

/**
 * Agent ids come from received spans, so their number is not bounded by configuration: the
 * first `max` distinct ids are labels, later ones share `_other`.
 */
export function createAgentLabels(max: number): (agentId: string) => string {
  const known = new Set<string>();
  return (agentId) => {
    if (known.has(agentId)) return agentId;
    if (known.size >= max) return OTHER_AGENT_LABEL;
    known.add(agentId);
    return agentId;
  };
}
