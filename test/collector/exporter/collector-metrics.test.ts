/**
 * The collector's metrics as Prometheus scrapes them: a configuration with a Prometheus exporter
 * on an ephemeral port, outcomes recorded through the verdict recorder, and a real HTTP scrape.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../collector/logger.ts';
import { createTelemetryExporters, type TelemetryExporters } from '../../../collector/exporter/index.ts';
import { createAgentLabels } from '../../../collector/exporter/collector-metrics.ts';
import { LAG_BUCKETS, MAX_AGENT_LABELS, SCORE_BUCKETS } from '../../../collector/exporter/metric-definitions.ts';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { scrape, select, sampleValue } from '../../helpers/prometheus-text.ts';
import { startOtlpCapture, type OtlpCapture } from '../../helpers/otlp-capture.ts';
import {
  INTERACTION_ID,
  OUTCOMES,
  SPAN_ID,
  TRACE_ID,
  interaction,
  telemetryConfig,
} from '../../helpers/telemetry-fixtures.ts';

let telemetry: TelemetryExporters | undefined;
let capture: OtlpCapture | undefined;
afterEach(async () => {
  await telemetry?.shutdown();
  await capture?.close();
  telemetry = undefined;
  capture = undefined;
});

async function startPrometheus(
  options: Parameters<typeof createTelemetryExporters>[1] = { logger: silentLogger },
): Promise<TelemetryExporters> {
  telemetry = createTelemetryExporters(telemetryConfig({ prometheus: true, metrics: ['prometheus'] }), options);
  await telemetry.start();
  return telemetry;
}

function recordAll(t: TelemetryExporters): void {
  t.onInteractionsRecorded([
    interaction(),
    interaction({ interactionId: `${TRACE_ID}-0000000000000001`, spanId: '0000000000000001', failed: true }),
  ]);
  for (const record of Object.values(OUTCOMES)) t.verdicts.record(record as EvaluationRecord);
}

describe('the Prometheus endpoint', () => {
  it('counts evaluations by evaluator, agent and outcome', async () => {
    const t = await startPrometheus();
    recordAll(t);
    t.verdicts.record({ ...OUTCOMES.pass, evaluationId: 'again' });
    const { contentType, samples } = await scrape(t.prometheusAddress()!);
    expect(contentType).toContain('text/plain; version=0.0.4');
    expect(
      sampleValue(samples, 'evalon_evaluations_total', {
        evaluator: 'quality-judge',
        agent: 'support-agent',
        outcome: 'pass',
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, 'evalon_evaluations_total', {
        evaluator: 'reply-length',
        agent: 'support-agent',
        outcome: 'fail',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'evalon_evaluations_total', {
        evaluator: 'tool-call-required',
        agent: 'support-agent',
        outcome: 'inconclusive',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'evalon_evaluations_total', {
        evaluator: 'json-schema',
        agent: 'support-agent',
        outcome: 'error',
      }),
    ).toBe(1);
  });

  it('records scores, durations and lags as histograms with their bucket boundaries', async () => {
    const t = await startPrometheus();
    recordAll(t);
    const { samples } = await scrape(t.prometheusAddress()!);
    const scoreBuckets = select(samples, 'evalon_evaluation_score_bucket', { evaluator: 'quality-judge' });
    expect(scoreBuckets.map((sample) => sample.labels.le)).toEqual([...SCORE_BUCKETS.map(String), '+Inf']);
    expect(sampleValue(samples, 'evalon_evaluation_score_bucket', { evaluator: 'quality-judge', le: '0.9' })).toBe(0);
    expect(sampleValue(samples, 'evalon_evaluation_score_bucket', { evaluator: 'quality-judge', le: '1' })).toBe(1);
    expect(sampleValue(samples, 'evalon_evaluation_score_sum', { evaluator: 'quality-judge' })).toBe(0.92);
    // Only verdicts with a score are in the score histogram.
    expect(select(samples, 'evalon_evaluation_score_count').map((sample) => sample.labels.evaluator)).toEqual([
      'quality-judge',
    ]);
    // Started 17.250, completed 17.750: half a second.
    expect(sampleValue(samples, 'evalon_evaluation_duration_sum', { evaluator: 'reply-length', outcome: 'fail' })).toBe(
      0.5,
    );
    // The interaction ended at 15.000: 2.75 s to the verdict.
    expect(sampleValue(samples, 'evalon_evaluation_lag_sum', { evaluator: 'json-schema', outcome: 'error' })).toBe(
      2.75,
    );
    expect(
      select(samples, 'evalon_evaluation_lag_bucket', { evaluator: 'json-schema' }).map((sample) => sample.labels.le),
    ).toEqual([...LAG_BUCKETS.map(String), '+Inf']);
    expect(sampleValue(samples, 'evalon_evaluation_lag_bucket', { evaluator: 'json-schema', le: '2' })).toBe(0);
    expect(sampleValue(samples, 'evalon_evaluation_lag_bucket', { evaluator: 'json-schema', le: '3' })).toBe(1);
  });

  it('reads the interaction from the ledger for the lag of an interaction it did not see recorded', async () => {
    const asked: string[] = [];
    const t = await startPrometheus({
      logger: silentLogger,
      getInteraction: async (id) => {
        asked.push(id);
        return { endTime: '2026-11-29T19:06:07.750Z' };
      },
    });
    t.verdicts.record(OUTCOMES.fail);
    await t.flush();
    const { samples } = await scrape(t.prometheusAddress()!);
    expect(asked).toEqual([INTERACTION_ID]);
    expect(sampleValue(samples, 'evalon_evaluation_lag_sum', { evaluator: 'reply-length' })).toBe(10);
  });

  it('counts interactions by agent and failed, spans received, and reads the pending and queue gauges', async () => {
    const t = await startPrometheus();
    recordAll(t);
    let queued = 7;
    t.metrics.observe({
      spansReceived: () => 42,
      pendingTraces: () => 3,
      pendingSpans: () => 11,
      evaluationQueueSize: async () => queued,
      evaluationsRunning: () => 2,
    });
    let { samples } = await scrape(t.prometheusAddress()!);
    expect(sampleValue(samples, 'evalon_interactions_total', { agent: 'support-agent', failed: 'false' })).toBe(1);
    expect(sampleValue(samples, 'evalon_interactions_total', { agent: 'support-agent', failed: 'true' })).toBe(1);
    expect(sampleValue(samples, 'evalon_spans_received_total')).toBe(42);
    expect(sampleValue(samples, 'evalon_pending_traces')).toBe(3);
    expect(sampleValue(samples, 'evalon_pending_spans')).toBe(11);
    expect(sampleValue(samples, 'evalon_evaluation_queue_size')).toBe(7);
    expect(sampleValue(samples, 'evalon_evaluation_running')).toBe(2);
    queued = 0;
    ({ samples } = await scrape(t.prometheusAddress()!));
    expect(sampleValue(samples, 'evalon_evaluation_queue_size')).toBe(0);
  });

  it(
    'records judge token usage with gen_ai.client.token.usage semantics, from the API and from evaluation ' +
      'attributes',
    async () => {
      const t = await startPrometheus();
      t.metrics.recordTokenUsage({
        evaluatorId: 'quality-judge',
        agentId: 'support-agent',
        provider: 'anthropic',
        model: 'claude-judge',
        inputTokens: 1200,
        outputTokens: 80,
      });
      t.verdicts.record({
        ...OUTCOMES.pass,
        outcome: {
          type: 'verdict',
          evaluation: {
            passed: true,
            explanation: 'ok',
            attributes: {
              'gen_ai.usage.input_tokens': 300,
              'gen_ai.usage.output_tokens': 20,
              'gen_ai.provider.name': 'anthropic',
              'gen_ai.request.model': 'claude-judge',
            },
          },
        },
      });
      const { samples } = await scrape(t.prometheusAddress()!);
      const labels = {
        evaluator: 'quality-judge',
        agent: 'support-agent',
        gen_ai_operation_name: 'chat',
        gen_ai_provider_name: 'anthropic',
        gen_ai_request_model: 'claude-judge',
      };
      expect(sampleValue(samples, 'gen_ai_client_token_usage_sum', { ...labels, gen_ai_token_type: 'input' })).toBe(
        1500,
      );
      expect(sampleValue(samples, 'gen_ai_client_token_usage_count', { ...labels, gen_ai_token_type: 'input' })).toBe(
        2,
      );
      expect(sampleValue(samples, 'gen_ai_client_token_usage_sum', { ...labels, gen_ai_token_type: 'output' })).toBe(
        100,
      );
      expect(
        sampleValue(samples, 'gen_ai_client_token_usage_bucket', { ...labels, gen_ai_token_type: 'output', le: '64' }),
      ).toBe(1);
    },
  );

  it('counts the tokens a failed evaluation reports in its outcome attributes', async () => {
    const t = await startPrometheus();
    t.verdicts.record({
      ...OUTCOMES.pass,
      evaluatorId: 'quality-judge',
      outcome: {
        type: 'failed',
        error: "the judge's reply was unreadable after 2 attempt(s)",
        errorType: 'EvaluatorFailedError',
        attributes: {
          'gen_ai.usage.input_tokens': 90,
          'gen_ai.usage.output_tokens': 12,
          'gen_ai.provider.name': 'anthropic',
          'gen_ai.request.model': 'claude-judge',
        },
      },
    });
    const { samples } = await scrape(t.prometheusAddress()!);
    const labels = { evaluator: 'quality-judge', gen_ai_request_model: 'claude-judge' };
    expect(sampleValue(samples, 'gen_ai_client_token_usage_sum', { ...labels, gen_ai_token_type: 'input' })).toBe(90);
    expect(sampleValue(samples, 'gen_ai_client_token_usage_sum', { ...labels, gen_ai_token_type: 'output' })).toBe(12);
    expect(sampleValue(samples, 'evalon_evaluations_total', { evaluator: 'quality-judge', outcome: 'error' })).toBe(1);
  });

  it('never puts an id, a trace id or text in a label', async () => {
    const t = await startPrometheus();
    recordAll(t);
    t.metrics.observe({
      spansReceived: () => 1,
      pendingTraces: () => 0,
      pendingSpans: () => 0,
      evaluationQueueSize: () => 0,
      evaluationsRunning: () => 0,
    });
    const { samples } = await scrape(t.prometheusAddress()!);
    const ours = samples.filter((sample) => sample.name.startsWith('evalon_') || sample.name.startsWith('gen_ai_'));
    expect(ours.length).toBeGreaterThan(20);
    const allowedLabels = new Set([
      'evaluator',
      'agent',
      'outcome',
      'subject',
      'failed',
      'shadow',
      'le',
      'otel_scope_name',
      'otel_scope_version',
    ]);
    const forbidden = [
      INTERACTION_ID,
      TRACE_ID,
      SPAN_ID,
      ...Object.values(OUTCOMES).map((record) => record.evaluationId),
      'accurate',
      'shorter',
      'missing',
      'transcript',
    ];
    for (const sample of ours) {
      for (const [label, value] of Object.entries(sample.labels)) {
        expect(allowedLabels.has(label), `${sample.name} label ${label}`).toBe(true);
        for (const text of forbidden) expect(value.includes(text), `${sample.name}{${label}="${value}"}`).toBe(false);
      }
    }
  });

  it('answers 404 off /metrics and fails to start, naming the key, on a port in use', async () => {
    const t = await startPrometheus();
    const { host, port } = t.prometheusAddress()!;
    expect((await fetch(`http://${host}:${port}/other`)).status).toBe(404);
    const config = telemetryConfig({ prometheus: true, metrics: ['prometheus'] });
    const clash = createTelemetryExporters(
      { ...config, exporters: { prometheus: { host, port } } },
      { logger: silentLogger },
    );
    await expect(clash.start()).rejects.toThrow(`exporters::prometheus::endpoint: cannot listen on ${host}:${port}`);
    await clash.shutdown();
  });
});

describe('without a metrics pipeline', () => {
  it('records nothing and never reads the ledger for the lag', async () => {
    capture = await startOtlpCapture();
    const asked: string[] = [];
    telemetry = createTelemetryExporters(telemetryConfig({ otlpEndpoint: capture.url, logs: ['otlphttp'] }), {
      logger: silentLogger,
      getInteraction: async (id) => {
        asked.push(id);
        return undefined;
      },
    });
    await telemetry.start();
    telemetry.verdicts.record(OUTCOMES.pass);
    await telemetry.flush();
    expect(asked).toEqual([]);
    expect(telemetry.prometheusAddress()).toBeUndefined();
    expect(capture.requests.map((request) => request.path)).toEqual(['/v1/logs']);
  });
});

describe('metrics over OTLP', () => {
  it('pushes the same instruments to /v1/metrics when the metrics pipeline names otlphttp', async () => {
    capture = await startOtlpCapture();
    telemetry = createTelemetryExporters(
      telemetryConfig({ otlpEndpoint: capture.url, prometheus: true, metrics: ['prometheus', 'otlphttp'] }),
      { logger: silentLogger },
    );
    await telemetry.start();
    recordAll(telemetry);
    await telemetry.flush();
    const names = capture.metrics.flatMap((request) =>
      (request.resourceMetrics as Array<{ scopeMetrics: Array<{ metrics: Array<{ name: string }> }> }>).flatMap(
        (resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.name)),
      ),
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'evalon.evaluations',
        'evalon.evaluation.score',
        'evalon.evaluation.duration',
        'evalon.evaluation.lag',
        'evalon.interactions',
      ]),
    );
    // The scrape endpoint still answers beside it.
    expect(
      sampleValue((await scrape(telemetry.prometheusAddress()!)).samples, 'evalon_evaluations_total', {
        outcome: 'error',
      }),
    ).toBe(1);
  });
});

describe('agent labels', () => {
  it('caps the number of distinct agent labels; later agents share "_other"', () => {
    const label = createAgentLabels(2);
    expect([label('a'), label('b'), label('c'), label('a'), label('d')]).toEqual(['a', 'b', '_other', 'a', '_other']);
    expect(MAX_AGENT_LABELS).toBeGreaterThanOrEqual(100);
  });
});
