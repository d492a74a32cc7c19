/**
 * A conversation's verdict in telemetry, captured as sent: its log event and its `evaluate` span
 * go to the revision's last interaction span and carry the conversation id, the revision and the
 * subject; its metrics carry `subject="conversation"` (interaction verdicts `subject="interaction"`),
 * and its lag counts from when it was known over, not from its last interaction's end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTelemetryExporters, type TelemetryExporters } from '../../../collector/exporter/index.ts';
import { silentLogger } from '../../../collector/logger.ts';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { startOtlpCapture, type OtlpCapture } from '../../helpers/otlp-capture.ts';
import { sampleValue, scrape } from '../../helpers/prometheus-text.ts';
import {
  CONVERSATION_VERDICT,
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

describe('a conversation verdict in telemetry', () => {
  it('is an event and a span on the last interaction, naming the conversation, revision and subject', async () => {
    capture = await startOtlpCapture();
    telemetry = createTelemetryExporters(
      telemetryConfig({ otlpEndpoint: capture.url, traces: ['otlphttp'], logs: ['otlphttp'] }),
      { logger: silentLogger },
    );
    await telemetry.start();
    telemetry.verdicts.record(CONVERSATION_VERDICT as EvaluationRecord);
    await telemetry.flush();
    const [log] = capture.logs;
    expect(log).toMatchObject({ eventName: 'gen_ai.evaluation.result', traceId: TRACE_ID, spanId: SPAN_ID });
    expect(log.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'conversation-judge',
      'gen_ai.conversation.id': 'conv-7',
      'evalon.conversation.revision': 2,
      'evalon.evaluation.subject': 'conversation',
      'evalon.interaction.id': INTERACTION_ID,
      'evalon.evaluation.outcome': 'pass',
    });
    const [span] = capture.spans;
    expect(span).toMatchObject({ name: 'evaluate conversation-judge', traceId: TRACE_ID, parentSpanId: SPAN_ID });
    expect(span.attributes).toMatchObject({
      'gen_ai.conversation.id': 'conv-7',
      'evalon.conversation.revision': 2,
      'evalon.evaluation.subject': 'conversation',
    });
  });

  it('labels metrics with the subject, and counts a conversation’s lag from when it was over', async () => {
    telemetry = createTelemetryExporters(telemetryConfig({ prometheus: true, metrics: ['prometheus'] }), {
      logger: silentLogger,
    });
    await telemetry.start();
    telemetry.onInteractionsRecorded([interaction()]);
    telemetry.verdicts.record(OUTCOMES.pass as EvaluationRecord);
    telemetry.verdicts.record(CONVERSATION_VERDICT as EvaluationRecord);
    const { samples } = await scrape(telemetry.prometheusAddress()!);
    const labels = { evaluator: 'conversation-judge', agent: 'support-agent', outcome: 'pass' };
    expect(sampleValue(samples, 'evalon_evaluations_total', { ...labels, subject: 'conversation' })).toBe(1);
    expect(
      sampleValue(samples, 'evalon_evaluations_total', { evaluator: 'quality-judge', subject: 'interaction' }),
    ).toBe(1);
    // Triggered at 19:21:15, completed at 19:21:16: one second, though its last interaction ended 15 minutes before.
    expect(sampleValue(samples, 'evalon_evaluation_lag_sum', { ...labels, subject: 'conversation' })).toBe(1);
    expect(
      sampleValue(samples, 'evalon_evaluation_score_count', {
        evaluator: 'conversation-judge',
        subject: 'conversation',
      }),
    ).toBe(1);
  });
});
