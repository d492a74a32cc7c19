/**
 * What a verdict says about where it came from, as sent: provenance attributes and the shadow mark
 * on the `gen_ai.evaluation.result` log event and the `evaluate` span (captured by a local OTLP/HTTP
 * server from the exporters a real configuration builds), scores as OTLP doubles even when whole,
 * and the `shadow` label on the evaluation metrics of a real Prometheus scrape.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelemetryExporters, type TelemetryExporters } from '../../../collector/exporter/index.ts';
import { silentLogger } from '../../../collector/logger.ts';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { startOtlpCapture, type OtlpCapture } from '../../helpers/otlp-capture.ts';
import { scrape, select } from '../../helpers/prometheus-text.ts';
import { OUTCOMES, telemetryConfig } from '../../helpers/telemetry-fixtures.ts';

let capture: OtlpCapture;
let telemetry: TelemetryExporters | undefined;
beforeEach(async () => {
  capture = await startOtlpCapture();
});
afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
  await capture.close();
});

/** A shadow entry's verdict with a whole-number score, and the entry in service beside it. */
const SHADOW: EvaluationRecord = {
  ...OUTCOMES.pass,
  evaluationId: 'eval-shadow',
  evaluatorId: 'llm-judge/candidate',
  evaluatorVersion: '2',
  outcome: {
    type: 'verdict',
    evaluation: {
      passed: true,
      explanation: 'fine',
      score: 1,
      attributes: { 'gen_ai.request.model': 'claude-candidate', 'gen_ai.usage.input_tokens': 100 },
    },
  },
  shadow: true,
  provenance: { evaluatorType: 'llm_judge', model: 'claude-candidate', configHash: '0123456789abcdef' },
};
const IN_SERVICE: EvaluationRecord = {
  ...OUTCOMES.pass,
  evaluationId: 'eval-in-service',
  evaluatorId: 'llm-judge/strict',
  outcome: { type: 'verdict', evaluation: { passed: false, explanation: 'no', score: 0, attributes: {} } },
  provenance: { evaluatorType: 'llm_judge', model: 'claude-strict', configHash: 'fedcba9876543210' },
};

type RawKeyValue = { key: string; value: Record<string, unknown> };
const rawValue = (attributes: unknown, key: string) =>
  (attributes as RawKeyValue[]).find((attribute) => attribute.key === key)?.value;

async function emit(records: EvaluationRecord[], metrics = false): Promise<void> {
  telemetry = createTelemetryExporters(
    telemetryConfig({
      otlpEndpoint: capture.url,
      traces: ['otlphttp'],
      logs: ['otlphttp'],
      ...(metrics ? { prometheus: true, metrics: ['prometheus'] } : {}),
    }),
    { logger: silentLogger },
  );
  await telemetry.start();
  for (const record of records) telemetry.verdicts.record(record);
  await telemetry.flush();
}

describe('scores', () => {
  it('arrive as OTLP doubles when whole (1 and 0) on the log event, the span and its event', async () => {
    await emit([SHADOW, IN_SERVICE]);
    for (const [record, score] of [
      [SHADOW, 1],
      [IN_SERVICE, 0],
    ] as const) {
      const log = capture.logs.find((entry) => entry.attributes['evalon.evaluation.id'] === record.evaluationId)!;
      expect(rawValue(log.raw.attributes, 'gen_ai.evaluation.score.value')).toEqual({ doubleValue: score });
      const span = capture.rawSpans.find(
        (entry) => rawValue(entry.attributes, 'evalon.evaluation.id')?.stringValue === record.evaluationId,
      )!;
      expect(rawValue(span.attributes, 'gen_ai.evaluation.score.value')).toEqual({ doubleValue: score });
      const [event] = span.events as Array<{ attributes: unknown }>;
      expect(rawValue(event.attributes, 'gen_ai.evaluation.score.value')).toEqual({ doubleValue: score });
      // Other whole numbers stay integers.
      if (record === SHADOW)
        expect(rawValue(log.raw.attributes, 'gen_ai.usage.input_tokens')).toEqual({ intValue: 100 });
    }
  });
});

describe('provenance and shadows', () => {
  it('puts the entry id, version, evaluator type, model, config hash and shadow mark on event and span', async () => {
    await emit([SHADOW, IN_SERVICE]);
    const log = (id: string) => capture.logs.find((entry) => entry.attributes['evalon.evaluation.id'] === id)!;
    const span = (id: string) => capture.spans.find((entry) => entry.attributes['evalon.evaluation.id'] === id)!;
    expect(log('eval-shadow').attributes).toMatchObject({
      'gen_ai.evaluation.name': 'llm-judge/candidate',
      'gen_ai.evaluation.evaluator.version': '2',
      'gen_ai.evaluation.evaluator.type': 'llm_judge',
      'gen_ai.request.model': 'claude-candidate',
      'evalon.evaluation.config_hash': '0123456789abcdef',
      'evalon.evaluation.shadow': true,
    });
    expect(span('eval-shadow').name).toBe('evaluate llm-judge/candidate');
    expect(span('eval-shadow').attributes).toMatchObject({
      'gen_ai.evaluation.evaluator.version': '2',
      'gen_ai.evaluation.evaluator.type': 'llm_judge',
      'evalon.evaluation.shadow': true,
      'evalon.evaluation.config_hash': '0123456789abcdef',
    });
    expect(log('eval-in-service').attributes).toMatchObject({
      'gen_ai.evaluation.name': 'llm-judge/strict',
      'gen_ai.request.model': 'claude-strict',
      'evalon.evaluation.config_hash': 'fedcba9876543210',
    });
    expect(log('eval-in-service').attributes['evalon.evaluation.shadow']).toBeUndefined();
    expect(span('eval-in-service').attributes['evalon.evaluation.shadow']).toBeUndefined();
  });

  it('labels the evaluation metrics shadow="true" or "false", so pass rates can leave shadows out', async () => {
    await emit([SHADOW, IN_SERVICE], true);
    const { samples } = await scrape(telemetry!.prometheusAddress()!);
    expect(select(samples, 'evalon_evaluations_total', { evaluator: 'llm-judge/candidate' })).toEqual([
      expect.objectContaining({ labels: expect.objectContaining({ shadow: 'true', outcome: 'pass' }), value: 1 }),
    ]);
    expect(select(samples, 'evalon_evaluations_total', { evaluator: 'llm-judge/strict' })).toEqual([
      expect.objectContaining({ labels: expect.objectContaining({ shadow: 'false', outcome: 'fail' }), value: 1 }),
    ]);
    for (const name of ['evalon_evaluation_score_count', 'evalon_evaluation_duration_count'])
      expect(select(samples, name, { evaluator: 'llm-judge/candidate', shadow: 'true' })).toHaveLength(1);
  });
});

describe('judge metrics', () => {
  it('exports each judge model’s circuit state (its worst endpoint) and the evaluations a budget skipped', async () => {
    telemetry = createTelemetryExporters(telemetryConfig({ prometheus: true, metrics: ['prometheus'] }), {
      logger: silentLogger,
      sources: {
        judgeCircuits: () => [
          { model: 'claude-a', state: 0 },
          { model: 'claude-a', state: 1 },
          { model: 'claude-b', state: 0 },
        ],
      },
    });
    await telemetry.start();
    telemetry.verdicts.skipped({ evaluatorId: 'llm-judge/strict', agentId: 'support-agent', reason: 'budget' });
    telemetry.verdicts.skipped({ evaluatorId: 'llm-judge/strict', agentId: 'support-agent', reason: 'budget' });
    const { samples } = await scrape(telemetry.prometheusAddress()!);
    expect(select(samples, 'evalon_judge_circuit_state').map((sample) => [sample.labels.model, sample.value])).toEqual([
      ['claude-a', 1],
      ['claude-b', 0],
    ]);
    expect(
      select(samples, 'evalon_evaluations_skipped_total', {
        evaluator: 'llm-judge/strict',
        agent: 'support-agent',
        reason: 'budget',
      })[0].value,
    ).toBe(2);
  });
});
