/**
 * Verdicts back into telemetry, captured as sent: the exporters of a configuration built by the
 * real loader post to a local OTLP/HTTP server, which decodes the requests (spans with the
 * collector's own receiver decoders).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../collector/logger.ts';
import { SpanKind, StatusCode } from '../../../collector/model/span.ts';
import { createTelemetryExporters, type TelemetryExporters } from '../../../collector/exporter/index.ts';
import type { EvaluationRecord } from '../../../src/model/records.ts';
import { startOtlpCapture, type OtlpCapture } from '../../helpers/otlp-capture.ts';
import {
  INTERACTION_ID,
  OUTCOMES,
  SPAN_ID,
  TRACE_ID,
  interaction,
  nanos,
  telemetryConfig,
} from '../../helpers/telemetry-fixtures.ts';

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

async function emitAll(choice: Parameters<typeof telemetryConfig>[0] = {}): Promise<void> {
  telemetry = createTelemetryExporters(
    telemetryConfig({ otlpEndpoint: capture.url, traces: ['otlphttp'], logs: ['otlphttp'], ...choice }),
    { logger: silentLogger },
  );
  await telemetry.start();
  for (const record of Object.values(OUTCOMES)) telemetry.verdicts.record(record as EvaluationRecord);
  await telemetry.flush();
}

const EXPECTED: Record<keyof typeof OUTCOMES, Record<string, unknown>> = {
  pass: {
    model: 'judge-model',
    'gen_ai.evaluation.name': 'quality-judge',
    'gen_ai.evaluation.score.value': 0.92,
    'gen_ai.evaluation.score.label': 'excellent',
    'gen_ai.evaluation.explanation': 'Response was accurate and helpful',
    'evalon.evaluation.id': 'eval-1-quality-judge',
    'evalon.interaction.id': INTERACTION_ID,
    'evalon.evaluation.subject': 'interaction',
    'evalon.evaluation.outcome': 'pass',
    'evalon.control.id': 'QA-1',
    'gen_ai.evaluation.evaluator.version': '1',
  },
  fail: {
    'gen_ai.evaluation.name': 'reply-length',
    'gen_ai.evaluation.score.label': 'fail',
    'gen_ai.evaluation.explanation': 'reply of 4 characters is shorter than 20',
    'evalon.evaluation.id': 'eval-2-reply-length',
    'evalon.interaction.id': INTERACTION_ID,
    'evalon.evaluation.subject': 'interaction',
    'evalon.evaluation.outcome': 'fail',
    'gen_ai.evaluation.evaluator.version': '1',
  },
  inconclusive: {
    'gen_ai.evaluation.name': 'tool-call-required',
    'gen_ai.evaluation.score.label': 'inconclusive',
    'gen_ai.evaluation.explanation': 'the interaction called no tools and the transcript is empty',
    'evalon.evaluation.id': 'eval-3-tool-call-required',
    'evalon.interaction.id': INTERACTION_ID,
    'evalon.evaluation.subject': 'interaction',
    'evalon.evaluation.outcome': 'inconclusive',
    'gen_ai.evaluation.evaluator.version': '1',
  },
  failed: {
    'gen_ai.evaluation.name': 'json-schema',
    'gen_ai.evaluation.explanation': 'evaluator json-schema: property schema is missing',
    'error.type': 'MissingConfigPropertyError',
    'evalon.evaluation.id': 'eval-4-json-schema',
    'evalon.interaction.id': INTERACTION_ID,
    'evalon.evaluation.subject': 'interaction',
    'evalon.evaluation.outcome': 'error',
    'gen_ai.evaluation.evaluator.version': '1',
  },
};

describe('verdict events (OTLP logs)', () => {
  it(
    'sends one gen_ai.evaluation.result log event per ' + 'outcome, parented to the evaluated interaction span',
    async () => {
      await emitAll();
      expect(capture.logs).toHaveLength(4);
      expect(
        capture.requests
          .filter((request) => request.path === '/v1/logs')
          .every((request) => request.contentType.includes('application/json')),
      ).toBe(true);
      for (const [name, record] of Object.entries(OUTCOMES)) {
        const log = capture.logs.find((entry) => entry.attributes['evalon.evaluation.id'] === record.evaluationId);
        expect(log, name).toBeDefined();
        expect(log!.eventName).toBe('gen_ai.evaluation.result');
        expect(log!.traceId).toBe(TRACE_ID);
        expect(log!.spanId).toBe(SPAN_ID);
        expect(log!.attributes).toEqual(EXPECTED[name as keyof typeof OUTCOMES]);
        expect(log!.timeUnixNano).toBe(nanos(record.completedAt));
        expect(log!.severityNumber).toBe(name === 'failed' ? 13 : 9);
        expect(log!.resource['service.name']).toBe('evalon-collector');
        // The name travels in the event_name field, not as an attribute.
        expect(log!.attributes['event.name']).toBeUndefined();
      }
    },
  );

  it('sends a score as an OTLP double', async () => {
    await emitAll();
    const pass = capture.logs.find((entry) => entry.attributes['evalon.evaluation.outcome'] === 'pass')!;
    const raw = (pass.raw.attributes as Array<{ key: string; value: Record<string, unknown> }>).find(
      (entry) => entry.key === 'gen_ai.evaluation.score.value',
    );
    expect(raw?.value).toEqual({ doubleValue: 0.92 });
  });

  it(
    'takes the evaluated span from the interaction when it is given, and falls back to "_OTHER" for an unnamed ' +
      'error',
    async () => {
      telemetry = createTelemetryExporters(telemetryConfig({ otlpEndpoint: capture.url, logs: ['otlphttp'] }), {
        logger: silentLogger,
      });
      const other = {
        ...OUTCOMES.failed,
        interactionId: 'not-an-otel-id',
        outcome: { type: 'failed', error: 'boom' },
      } satisfies EvaluationRecord;
      telemetry.verdicts.record(
        other,
        interaction({ interactionId: 'not-an-otel-id', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }),
      );
      await telemetry.flush();
      expect(capture.logs).toHaveLength(1);
      expect(capture.logs[0]).toMatchObject({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) });
      expect(capture.logs[0].attributes['error.type']).toBe('_OTHER');
      // No traces pipeline: no evaluation span.
      expect(capture.spans).toHaveLength(0);
    },
  );

  it('posts with the configured headers and gzip', async () => {
    await emitAll({ compression: 'gzip', headers: { authorization: 'Bearer t0ken', 'x-scope-orgid': 'tenant-1' } });
    expect(capture.requests.length).toBeGreaterThan(0);
    for (const request of capture.requests) {
      expect(request.contentEncoding).toBe('gzip');
      expect(request.headers.authorization).toBe('Bearer t0ken');
      expect(request.headers['x-scope-orgid']).toBe('tenant-1');
    }
    expect(capture.logs).toHaveLength(4);
    expect(capture.spans).toHaveLength(4);
  });
});

describe('evaluation spans (OTLP traces)', () => {
  it(
    'sends one "evaluate <evaluator-id>" span per outcome: a child of the interaction span, timed over the ' +
      'evaluation',
    async () => {
      await emitAll();
      expect(capture.spans).toHaveLength(4);
      for (const [name, record] of Object.entries(OUTCOMES)) {
        const span = capture.spans.find((entry) => entry.attributes['evalon.evaluation.id'] === record.evaluationId);
        expect(span, name).toBeDefined();
        expect(span!.name).toBe(`evaluate ${record.evaluatorId}`);
        expect(span!.traceId).toBe(TRACE_ID);
        expect(span!.parentSpanId).toBe(SPAN_ID);
        expect(span!.spanId).not.toBe(SPAN_ID);
        expect(span!.kind).toBe(SpanKind.INTERNAL);
        expect(span!.startTimeUnixNano).toBe(nanos(record.startedAt));
        expect(span!.endTimeUnixNano).toBe(nanos(record.completedAt));
        expect(span!.attributes).toEqual({
          ...EXPECTED[name as keyof typeof OUTCOMES],
          'gen_ai.agent.id': 'support-agent',
          'evalon.evaluator.version': '1',
          'evalon.evaluation.attempts': 1,
        });
        expect(span!.events).toEqual([
          {
            name: 'gen_ai.evaluation.result',
            timeUnixNano: nanos(record.completedAt),
            attributes: EXPECTED[name as keyof typeof OUTCOMES],
          },
        ]);
        expect(span!.origin.scopeName).toBe('evalon.collector');
      }
    },
  );

  it('sets status ERROR, with the error, on the span of a failed evaluation only', async () => {
    await emitAll();
    const byOutcome = (outcome: string) =>
      capture.spans.find((span) => span.attributes['evalon.evaluation.outcome'] === outcome)!;
    expect(byOutcome('error').status).toEqual({
      code: StatusCode.ERROR,
      message: 'evaluator json-schema: property schema is missing',
    });
    for (const outcome of ['pass', 'fail', 'inconclusive'])
      expect(byOutcome(outcome).status.code).toBe(StatusCode.UNSET);
  });

  it('marks the interaction span as a remote parent', async () => {
    await emitAll();
    // Bit 8: the remote-parent bit is known; bit 9: the parent is remote. Low byte: sampled.
    for (const span of capture.spans) expect(span.flags).toBe(0x301);
  });

  it('sends neither events nor spans when only the metrics pipeline names otlphttp', async () => {
    await emitAll({ traces: [], logs: [], metrics: ['otlphttp'] });
    expect(capture.requests.map((request) => request.path)).toEqual(['/v1/metrics']);
    expect(capture.logs).toHaveLength(0);
    expect(capture.spans).toHaveLength(0);
  });
});

describe('when things go wrong', () => {
  it('says in the collector log when the backend refuses verdict events and evaluation spans', async () => {
    const warnings: string[] = [];
    telemetry = createTelemetryExporters(
      telemetryConfig({ otlpEndpoint: capture.url, traces: ['otlphttp'], logs: ['otlphttp'] }),
      {
        logger: { ...silentLogger, warn: (line) => warnings.push(line) },
      },
    );
    capture.respondWith(400);
    for (const record of Object.values(OUTCOMES)) telemetry.verdicts.record(record as EvaluationRecord);
    await telemetry.flush();
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`exporters::otlphttp: exporting verdict events to ${capture.url}/v1/logs failed`),
        expect.stringContaining(`exporters::otlphttp: exporting evaluation spans to ${capture.url}/v1/traces failed`),
      ]),
    );
  });

  it('shuts down safely without start and twice, and ignores outcomes recorded after', async () => {
    telemetry = createTelemetryExporters(
      telemetryConfig({
        otlpEndpoint: capture.url,
        prometheus: true,
        traces: ['otlphttp'],
        forward: true,
        logs: ['otlphttp'],
        metrics: ['prometheus', 'otlphttp'],
      }),
      { logger: silentLogger },
    );
    await telemetry.shutdown();
    await telemetry.shutdown();
    expect(() => telemetry!.verdicts.record(OUTCOMES.pass)).not.toThrow();
    expect(() => telemetry!.forwarder!.forward([])).not.toThrow();
    expect(telemetry.prometheusAddress()).toBeUndefined();
  });
});
